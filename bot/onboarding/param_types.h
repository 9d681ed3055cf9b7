// What a launcher parameter's C++ type means for a [[kernel.arg]]: a pointer to elements of a
// dtype, a numeric scalar, a cudaStream_t, or something no role can drive (a handle, a struct
// by value, a function pointer). Types are resolved through the aliases the source can see, so
// `init` guesses and `config check` judges a parameter the same way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "cuda_source/reading/type_aliases.h"

namespace kb::bot {

enum class ParamKind { pointer, scalar, stream, opaque };

struct ParamType {
  ParamKind kind = ParamKind::opaque;
  bool const_pointee = false;                          // const T*: the kernel cannot write through it
  std::optional<DType> dtype;                          // of the element (pointer) or the value (scalar), when known
  std::string element;                                 // the element/value type after aliases: "__nv_bfloat16"
  std::vector<const cuda_source::TypeAlias*> aliases;  // the aliases it went through
  std::string why_not_drivable;                        // for opaque: what it is and why no role fits
};

ParamType classify_param(const std::string& type, const cuda_source::TypeAliases& aliases);

// The dtype of a plain C++ element type ("float", "__nv_bfloat16", "int64_t"), if it has one.
std::optional<DType> dtype_of_element(const std::string& element);

// "floatX is typedef'd to float at common.cuh:12 (#else of #if defined(ENABLE_BF16)); also
// defined as: __nv_bfloat16": the `# check:` note and the check's wording for an alias.
std::string describe_aliases(const std::vector<const cuda_source::TypeAlias*>& aliases);

}  // namespace kb::bot
