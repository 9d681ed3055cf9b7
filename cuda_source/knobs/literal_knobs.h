// The knobs real launchers already have, found as source edits: no macro needed. In the
// launcher's body and the kernels it launches:
//   - an integer literal as a launch's block size:   <<<(n + 31) / 32, 32, 0, stream>>>
//   - a const/constexpr integer local used by a launch (block size or kernel template argument):
//       constexpr int threads = 32;  ...  row_kernel<float, threads><<<rows, threads>>>
//   - the literal components of a dim3 used as a launch's block:  dim3 block(1, 256);
//   - a file-scope `#define NAME 128` (no #ifndef guard, so -D cannot set it) used as a launch's
//     block size or the components of its dim3 block (`dim3(TILE, TILE)`), when nothing outside
//     the launcher and its kernels uses NAME;
//   - a literal template argument of the launched kernel that the block is written with, tied
//     into one knob with it: `gemm<8><<<grid, dim3(8, 8)>>>`, `k<32><<<grid, 32 * 32>>>` (the
//     template argument sizes the kernel's shared-memory tiles: block and tile change together);
//   - `#pragma unroll N` factors and __launch_bounds__ minimum blocks per SM in the kernels;
// and, for advisory probes only, a launcher parameter used as a block size (the caller chooses
// it: no PR can change it). A knob is every place that must change together: the grid that
// divides by the block's literal (`(n + 31) / 32`), a __launch_bounds__ of the same value. A knob
// whose places cannot all be rewritten consistently is not offered (a debug log says why).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cuda_source/knobs/tunable_macros.h"
#include "cuda_source/tokens/source_scanner.h"

namespace kb::cuda_source {

// One replacement of text[begin, end).
struct TextEdit {
  size_t begin = 0, end = 0;
  std::string text;
};

// `text` with `edits` applied back to front. Throws kb::Error when two overlap.
std::string apply_text_edits(const std::string& text, std::vector<TextEdit> edits);

// One place in the text that carries a knob's value.
struct KnobOccurrence {
  size_t begin = 0, end = 0;  // the bytes to rewrite
  int64_t offset = 0;         // the text is value + offset: the 31 of `(n + 31) / 32` has offset -1
  // A grid extent written for a block dimension of 1 (`cols` for `dim3 block(1, 256)`): for
  // another value v it becomes `((cols) + v - 1) / v`. Empty for a literal.
  std::string wrapped;
};

enum class KnobKind {
  launch_block,       // a literal block argument of a launch
  constant,           // a const/constexpr integer local of the launcher
  dim3_component,     // one literal component of a dim3 block
  pragma_unroll,      // #pragma unroll N in a launched kernel
  min_blocks_per_sm,  // the second argument of a kernel's __launch_bounds__
  define_value,       // an unguarded file-scope `#define NAME 128` used as a launch's block size
  template_tile,      // a literal template argument the block is written with: kernel<32><<<g, 32 * 32>>>
};

// Whether a knob of this kind shapes a launch's block (its size, one dimension of it, a constant
// or #define it is written with), as opposed to one of a launched kernel's own (unroll, min blocks).
constexpr bool shapes_block(KnobKind kind) {
  return kind == KnobKind::launch_block || kind == KnobKind::dim3_component || kind == KnobKind::constant ||
         kind == KnobKind::define_value || kind == KnobKind::template_tile;
}

struct LiteralKnob {
  KnobKind kind = KnobKind::launch_block;
  MacroRole role = MacroRole::other;
  std::string name;      // short, for labels: "launch_gelu block", "threads", "block.y"
  std::string subject;   // in words: "block size of launch_gelu's launch"
  std::string where;     // "the literal 32 at src/gelu.cu:41"
  std::string function;  // the launcher or kernel it is in
  std::string group;     // the block shape it is one dimension of (dim3 components), else empty
  // Block knobs: the kernel whose launch it shapes (empty when launches of several kernels share
  // it), and which block dimension it is of how many (-1/0 when not known).
  std::string kernel;
  int axis = -1, axes = 0;
  int64_t value = 0;
  int line = 0;
  std::vector<KnobOccurrence> occurrences;  // the first is the knob's own literal
  // A tied knob (a template argument or #define the block is written with): each block
  // dimension is value^power (`dim3(T, T)`: {1, 1}; `T * T`: {2}); empty for other knobs.
  std::vector<int> block_powers;

  // "block size of launch_gelu's launch (the literal 32 at src/gelu.cu:41)"
  std::string description() const { return subject + " (" + where + ")"; }
  // What a PR's edit list calls it: "block size literal in launch_gelu", "`threads` in launch_rows".
  std::string edit_name() const;
  // The edits that give the knob `value` (none when it already has it).
  std::vector<TextEdit> edits(int64_t value) const;
};

// A launcher parameter used as a launch's block size: what the caller chooses. The tuner may
// only probe it (an assignment at the top of the body) and report what it measured.
struct ArgumentKnob {
  std::string launcher;  // as the scanner names it
  std::string param;
  std::string type;
  int line = 0;
  size_t body_begin = 0;  // one past the launcher body's '{'

  // "launch_gather's caller-chosen `threads`"
  std::string subject() const;
  // The assignment that probes `value`, inserted at the top of the body, marked so that the
  // variant can never be published: `threads = 256;  // kernelbot: advisory probe of ...`.
  // `config_value` is the value the [[kernel.arg]] passes.
  TextEdit probe(int64_t value, int64_t config_value) const;
};

struct LauncherKnobs {
  std::vector<LiteralKnob> literals;
  // Each launched kernel's template arguments as its launch writes them ("8", "float, TILE"), for
  // kernels launched once here with template arguments.
  std::map<std::string, std::string> template_args;
  std::vector<ArgumentKnob> arguments;
  // What looked like a knob but is not offered, and why ("the literal 32 at a.cu:9: the grid
  // uses 32 in a way that cannot be rewritten with it"), for a debug log.
  std::vector<std::string> not_offered;
};

// Which of several launchers of one name (overloads) is meant: the highest score wins, ties go
// to the first in the file. Without a scorer the first is taken.
using OverloadScore = std::function<int(const ScannedLauncher&)>;

// The knobs of `launcher` (possibly qualified) in `text`, scanned into `scan`; `file` names the
// file in descriptions.
LauncherKnobs find_launcher_knobs(const std::string& text, const ScanResult& scan, const std::string& launcher,
                                  const std::string& file, const OverloadScore& score = {});
LauncherKnobs find_launcher_knobs(const std::string& text, const std::string& launcher, const std::string& file,
                                  const OverloadScore& score = {});

// The marker a probe's assignment carries: a source with it must never be published.
inline constexpr const char* kAdvisoryProbeMarker = "// kernelbot: advisory probe of ";

// What a source's probe line says: "launch_gather's caller-chosen `threads` (64 in this config)"
// and the probed value "256"; nothing when the source has no probe.
struct AdvisoryProbe {
  std::string subject;
  std::string value;
};
std::optional<AdvisoryProbe> find_advisory_probe(const std::string& source);

}  // namespace kb::cuda_source
