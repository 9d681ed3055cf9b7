# kb_embed_text(<target> <symbol> <file>): compiles <file>'s text into <target> as
# `extern const char* const kb::embedded::<symbol>;`, so templates and prompts stay data files
# in the source tree yet the installed binary needs nothing beside it.
function(kb_embed_text target symbol file)
  set(out "${CMAKE_BINARY_DIR}/embedded/${symbol}.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DSYMBOL=${symbol}
            -P "${PROJECT_SOURCE_DIR}/cmake/EmbedTextRun.cmake"
    DEPENDS "${file}" "${PROJECT_SOURCE_DIR}/cmake/EmbedTextRun.cmake"
    COMMENT "Embedding ${file}")
  target_sources(${target} PRIVATE "${out}")
endfunction()
