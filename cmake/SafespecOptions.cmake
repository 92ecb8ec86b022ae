# Warnings and sanitizers for the project's own targets (never forced onto
# imported ones).
function(safespec_target_options target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(SAFESPEC_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(SAFESPEC_SANITIZE)
  # UBSan must not recover: a recovered error prints and exits 0.
  add_compile_options(-fsanitize=${SAFESPEC_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${SAFESPEC_SANITIZE} -fno-sanitize-recover=all)
endif()
