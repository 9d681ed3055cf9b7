#include "search/search_engine.h"

#include <stdexcept>

namespace kb::search {

SearchResult run_search(const SearchRequest&) {
  throw std::runtime_error("the search engine is not implemented yet (issue #4)");
}

}  // namespace kb::search
