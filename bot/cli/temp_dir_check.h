// nvcc writes its intermediate files under $TMPDIR (else /tmp). When that directory cannot be
// written, every compile fails with nvcc's words about a file it could not open, and a command
// would report the first kernel's original as not compiling. The commands that compile check the
// directory once, before any kernel, and name it.
#pragma once

namespace kb::bot {

// Throws kb::Error naming $TMPDIR (or /tmp) when a file cannot be created there.
void require_writable_temp_dir();

}  // namespace kb::bot
