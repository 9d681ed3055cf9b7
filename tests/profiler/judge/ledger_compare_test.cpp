// The ledger of many calls (ledger_compare.h): what counts against a candidate is what it leaves
// behind beyond the original, and a condition the original fails is skipped.
#include "profiler/judge/tracing/ledger_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb::judge {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Ledger clean() {
  Ledger l;
  l.calls = 20;
  l.pending_error = "kept";
  return l;
}

TEST(LedgerCompare, TheSameLedgerAsTheOriginalPasses) {
  const LedgerComparison c = compare_ledgers(clean(), clean());
  EXPECT_THAT(c.differences, IsEmpty());
  EXPECT_THAT(c.skipped, IsEmpty());
}

TEST(LedgerCompare, ALeakPerCallIsNamedWithItsCountAndBytes) {
  Ledger cand = clean();
  cand.allocations = 20;
  cand.allocated_bytes = 20 * 16384;
  const LedgerComparison c = compare_ledgers(clean(), cand);
  ASSERT_EQ(c.differences.size(), 1u);
  EXPECT_EQ(c.differences[0], "20 allocations (327680 bytes) made and never freed over 20 calls (the original: 0)");
}

TEST(LedgerCompare, WhatTheOriginalAlsoLeavesBehindIsNotHeldAgainstTheCandidate) {
  Ledger orig = clean(), cand = clean();
  orig.events = cand.events = 2;
  orig.threads = cand.threads = 1;
  EXPECT_THAT(compare_ledgers(orig, cand).differences, IsEmpty());
  cand.events = 22;
  EXPECT_THAT(compare_ledgers(orig, cand).differences,
              ElementsAre("22 events created and never destroyed over 20 calls (the original: 2)"));
}

TEST(LedgerCompare, StreamsGraphsAndThreadsCount) {
  Ledger cand = clean();
  cand.streams = 1;
  cand.graphs = 20;
  cand.graph_execs = 20;
  cand.threads = 1;
  const auto d = compare_ledgers(clean(), cand).differences;
  ASSERT_EQ(d.size(), 4u);
  EXPECT_THAT(d[0], HasSubstr("1 stream created and never destroyed"));
  EXPECT_THAT(d[1], HasSubstr("20 CUDA graphs"));
  EXPECT_THAT(d[2], HasSubstr("20 executable CUDA graphs instantiated"));
  EXPECT_THAT(d[3], HasSubstr("1 host thread started and still running"));
}

TEST(LedgerCompare, FreeMemoryOnlyCountsBeyondTheSlack) {
  Ledger orig = clean(), cand = clean();
  orig.free_memory_drop = 2 << 20;
  cand.free_memory_drop = orig.free_memory_drop + kFreeMemorySlackBytes;  // page noise, lazy local memory
  EXPECT_THAT(compare_ledgers(orig, cand).differences, IsEmpty());
  cand.free_memory_drop = 512ll << 20;
  EXPECT_THAT(compare_ledgers(orig, cand).differences,
              ElementsAre("device memory in use grew by 512 MiB over 20 calls (the original's by 2 MiB)"));
}

TEST(LedgerCompare, AChangedDeviceSettingIsNamedUnlessTheOriginalChangesItToo) {
  Ledger orig = clean(), cand = clean();
  cand.changed_settings["cudaLimitStackSize"] = "1024 -> 8192";
  cand.changed_settings["the cache configuration"] = "0 -> 2";
  orig.changed_settings["the cache configuration"] = "0 -> 2";
  EXPECT_THAT(compare_ledgers(orig, cand).differences,
              ElementsAre("the device-wide setting cudaLimitStackSize changed (1024 -> 8192) and was not restored; "
                          "the original leaves it alone"));
}

TEST(LedgerCompare, APendingErrorMustBeKeptWhenTheOriginalKeepsIt) {
  Ledger cand = clean();
  cand.pending_error = "cleared";
  EXPECT_THAT(compare_ledgers(clean(), cand).differences,
              ElementsAre("an error the caller left pending before the call was not kept (cleared); the original "
                          "keeps it for the caller to see"));
  // An original that checks cudaGetLastError itself fails the condition: skipped, not held.
  Ledger orig = clean();
  orig.pending_error = "the launcher returned 1";
  const LedgerComparison c = compare_ledgers(orig, cand);
  EXPECT_THAT(c.differences, IsEmpty());
  EXPECT_THAT(c.skipped, ElementsAre(HasSubstr("the original does not keep it (the launcher returned 1)")));
}

TEST(LedgerCompare, CudaCallsWhenTheLibraryIsLoadedCountUnlessTheOriginalMakesThemToo) {
  Ledger cand = clean();
  cand.load.first_call = "cudaMalloc";
  cand.load.allocations = 1;
  cand.load.bytes = 1 << 20;
  EXPECT_THAT(compare_ledgers(clean(), cand).differences,
              ElementsAre("its library calls CUDA when it is loaded (first cudaMalloc), before the caller's program "
                          "has chosen a device; the original's does not"));
  // An original that calls CUDA at load too: only allocations beyond its own count.
  Ledger orig = clean();
  orig.load.first_call = "cudaGetDeviceCount";
  EXPECT_THAT(compare_ledgers(orig, cand).differences,
              ElementsAre("its library makes 1 allocation (1048576 bytes) when it is loaded (the original's: 0)"));
  orig.load.allocations = 1;
  EXPECT_THAT(compare_ledgers(orig, cand).differences, IsEmpty());
}

TEST(LedgerCompare, TheNoteRoundTripsAndAMalformedOneReadsAsNothing) {
  Ledger l = clean();
  l.allocations = 3;
  l.allocated_bytes = 12288;
  l.events = -1;
  l.threads = 2;
  l.changed_settings["cudaLimitMallocHeapSize"] = "8388608 -> 67108864";
  l.load.first_call = "cudaMemcpyToSymbol";
  l.load.allocations = 1;
  l.load.bytes = 4096;
  const auto back = ledger_from_note(ledger_to_note(l));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->allocations, 3);
  EXPECT_EQ(back->allocated_bytes, 12288u);
  EXPECT_EQ(back->events, -1);
  EXPECT_EQ(back->threads, 2);
  EXPECT_EQ(back->pending_error, "kept");
  EXPECT_EQ(back->changed_settings.at("cudaLimitMallocHeapSize"), "8388608 -> 67108864");
  EXPECT_EQ(back->load.first_call, "cudaMemcpyToSymbol");
  EXPECT_EQ(back->load.allocations, 1);
  EXPECT_EQ(back->load.bytes, 4096u);
  EXPECT_LT(ledger_to_note(l).size(), 1024u);  // fits the wire's note
  EXPECT_FALSE(ledger_from_note("").has_value());
  EXPECT_FALSE(ledger_from_note("{\"calls\": 20}").has_value());
  EXPECT_FALSE(ledger_from_note("[1,2]").has_value());
  EXPECT_FALSE(ledger_from_note("{\"calls\":\"x\",\"allocations\":0}").has_value());
}

}  // namespace
}  // namespace kb::judge
