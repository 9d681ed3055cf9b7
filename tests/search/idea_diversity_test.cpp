// A round's ideas kept diverse: near-duplicates merged, slots spread over families, and the
// llm proposer numbering what it kept.
#include "search/ideas/idea_diversity.h"

#include <gtest/gtest.h>

#include "tests/search/scripted_proposer.h"

using namespace kb::search;
using kb::testing::idea;

namespace {

std::vector<std::string> texts(const std::vector<ProposedIdea>& ideas) {
  std::vector<std::string> out;
  for (const auto& i : ideas) out.push_back(i.idea.text);
  return out;
}

}  // namespace

TEST(IdeaSimilarity, SameIdeaInOtherWordsOrParametersIsAlikeDifferentIdeasAreNot) {
  EXPECT_DOUBLE_EQ(idea_similarity("Use float4 loads", "use float4 loads."), 1.0);
  EXPECT_GE(idea_similarity("Tile in shared memory, 32x32", "tile in shared memory, 64x64"), kNearDuplicate);
  // The same content words in another order: the edit distance says little, the words do.
  EXPECT_GE(idea_similarity("Vectorize the loads with float4 and grid-stride loops",
                            "Grid-stride loops with float4 vectorize the loads"),
            kNearDuplicate);
  EXPECT_LT(idea_similarity("Vectorize the loads with float4", "Fuse the two kernels into one launch"), 0.5);
  EXPECT_LT(idea_similarity("bigger blocks", "smaller blocks"), kNearDuplicate);
  EXPECT_LT(idea_similarity("", "anything"), 0.5);
}

TEST(IdeaDiversity, NearDuplicatesAreMergedIntoTheFirst) {
  auto selection = diversify_ideas({idea("Vectorize loads with float4.", "memory_access"),
                                    idea("Fuse the scale into the kernel", "fusion"),
                                    idea("vectorize loads with float4", "memory_access", "r1-i0-b0"),
                                    idea("Use warp shuffles for the reduction", "control_flow")},
                                   4);
  EXPECT_EQ(texts(selection.ideas),
            (std::vector<std::string>{"Vectorize loads with float4.", "Fuse the scale into the kernel",
                                      "Use warp shuffles for the reduction"}));
  EXPECT_EQ(selection.ideas[0].seed_id, "");  // the first one's, not the duplicate's
  ASSERT_EQ(selection.notes.size(), 1u);
  EXPECT_EQ(selection.notes[0].rfind("idea 3 (\"vectorize loads with float4\") merged into idea 1 (100% alike)", 0), 0u)
      << selection.notes[0];
}

TEST(IdeaDiversity, SlotsAreSpreadOverFamiliesInTheReplysOrder) {
  // Four memory ideas first, then one of each other family: three slots.
  auto selection = diversify_ideas({idea("vectorize with float4", "memory_access"),
                                    idea("coalesce the column reads through shared memory", "memory_access"),
                                    idea("read-only cache loads with __ldg", "memory_access"),
                                    idea("prefetch the next tile with cp.async", "async_latency"),
                                    idea("raise occupancy with 512 threads", "parallelism")},
                                   3);
  EXPECT_EQ(texts(selection.ideas),
            (std::vector<std::string>{"vectorize with float4", "prefetch the next tile with cp.async",
                                      "raise occupancy with 512 threads"}));
  EXPECT_EQ(selection.notes.size(), 2u);
  // With room for all, nothing is left out and the order is the reply's.
  auto all = diversify_ideas({idea("a b c vectorize", "memory_access"), idea("fuse two kernels", "fusion")}, 4);
  EXPECT_EQ(texts(all.ideas), (std::vector<std::string>{"a b c vectorize", "fuse two kernels"}));
  EXPECT_TRUE(all.notes.empty());
  // Families filled in turn: the second memory idea takes the slot after each family had one.
  auto second = diversify_ideas({idea("vectorize with float4", "memory_access"),
                                 idea("coalesce the column reads through shared memory", "memory_access"),
                                 idea("fuse the bias add", "fusion")},
                                3);
  EXPECT_EQ(second.ideas.size(), 3u);
  auto two = diversify_ideas({idea("vectorize with float4", "memory_access"),
                              idea("coalesce the column reads through shared memory", "memory_access"),
                              idea("fuse the bias add", "fusion")},
                             2);
  EXPECT_EQ(texts(two.ideas), (std::vector<std::string>{"vectorize with float4", "fuse the bias add"}));
}
