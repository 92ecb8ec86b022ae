# Whether to build the Python module (python/, `import safespec`): on by
# default when pybind11 (Debian pybind11-dev) and Python's development files
# are found, so a machine without them still builds everything else. Off by
# default under sanitizers and libFuzzer: an instrumented module cannot be
# loaded into an uninstrumented interpreter.

# The module's tests need numpy and pytest, which Debian installs for
# /usr/bin/python3 only; a python3 earlier on PATH (pyenv, a venv) may lack
# them, so the first interpreter that imports both is the one built for.
if(NOT DEFINED Python3_EXECUTABLE)
  find_program(safespec_path_python3 NAMES python3 NO_CACHE)
  foreach(candidate IN ITEMS "${safespec_path_python3}" /usr/bin/python3)
    if(candidate AND EXISTS "${candidate}")
      execute_process(COMMAND "${candidate}" -c "import numpy, pytest" RESULT_VARIABLE safespec_py_rc
                      OUTPUT_QUIET ERROR_QUIET)
      if(safespec_py_rc EQUAL 0)
        set(Python3_EXECUTABLE "${candidate}" CACHE FILEPATH "The Python the module is built and tested for")
        break()
      endif()
    endif()
  endforeach()
endif()

find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
if(Python3_FOUND)
  find_package(pybind11 CONFIG QUIET)
endif()
if(Python3_FOUND AND pybind11_FOUND AND NOT SAFESPEC_SANITIZE AND NOT SAFESPEC_FUZZ)
  set(safespec_python_default ON)
else()
  set(safespec_python_default OFF)
endif()
option(SAFESPEC_PYTHON "Build the Python module (pybind11; on when pybind11 and Python3 development files are found)"
       ${safespec_python_default})
if(SAFESPEC_PYTHON)
  if(NOT Python3_FOUND OR NOT pybind11_FOUND)
    message(FATAL_ERROR "SAFESPEC_PYTHON needs Python3 development files and pybind11 (Debian: python3-dev pybind11-dev)")
  endif()
  # The module is a shared object that holds the static libraries: their
  # code must be position-independent.
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  message(STATUS "safespec: Python module for ${Python3_EXECUTABLE} (pybind11 ${pybind11_VERSION})")
endif()
