# The C API's numerics (include/safespec/numerics.h): from C with outputs
# pinned bit for bit and every refusal (props/c_api_numerics_test.c, the
# W4A8, int8_tensorwise and convrot_w4a4 linears), and
# against the C++ reference on small and random layers, every format and
# every codec code (props/c_api_numerics_equiv_test.cpp).
add_executable(c_api_numerics_test ${PROJECT_SOURCE_DIR}/props/c_api_numerics_test.c)
target_include_directories(c_api_numerics_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(c_api_numerics_test PRIVATE safespec::safespec m)
safespec_target_options(c_api_numerics_test)
add_test(NAME c_api.numerics COMMAND c_api_numerics_test)

# The comparison of two tensors and the rule catalogue's JSON, from C
# (props/c_api_compare_test.c): what Python's compare() and rules() read.
add_executable(c_api_compare_test ${PROJECT_SOURCE_DIR}/props/c_api_compare_test.c)
target_include_directories(c_api_compare_test PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(c_api_compare_test PRIVATE safespec::safespec m)
safespec_target_options(c_api_compare_test)
add_test(NAME c_api.compare COMMAND c_api_compare_test)

add_executable(c_api_numerics_equiv_test ${PROJECT_SOURCE_DIR}/props/c_api_numerics_equiv_test.cpp)
target_link_libraries(c_api_numerics_equiv_test PRIVATE safespec::safespec safespec_lib)
safespec_target_options(c_api_numerics_equiv_test)
add_test(NAME c_api.numerics_equal_reference COMMAND c_api_numerics_equiv_test)

# The int8_tensorwise and convrot_w4a4 linears against the C++ reference on
# random layers of every dtype, semantics and linear_dtype, and against the
# command: the same layers through `safespec linear --dump`, file for file
# (props/c_api_int_linear_equiv_test.cpp).
add_executable(c_api_int_linear_equiv_test ${PROJECT_SOURCE_DIR}/props/c_api_int_linear_equiv_test.cpp)
target_link_libraries(c_api_int_linear_equiv_test PRIVATE safespec::safespec safespec_lib)
safespec_target_options(c_api_int_linear_equiv_test)
add_test(NAME c_api.int_linears_equal_reference_and_command
         COMMAND c_api_int_linear_equiv_test $<TARGET_FILE:safespec> ${CMAKE_CURRENT_BINARY_DIR}/c_api_int_linear)

# safespec_layer_describe and safespec_dequant_layer, the one entry point
# keyed by format name, against the command's path on every example layer;
# it fails when a format of the table has no example the C API reaches
# (props/c_api_layer_equiv_test.cpp).
add_executable(c_api_layer_equiv_test ${PROJECT_SOURCE_DIR}/props/c_api_layer_equiv_test.cpp)
target_link_libraries(c_api_layer_equiv_test PRIVATE safespec::safespec safespec_lib)
safespec_target_options(c_api_layer_equiv_test)
add_test(NAME c_api.layers_equal_command COMMAND c_api_layer_equiv_test ${PROJECT_SOURCE_DIR}/corpus/examples/quant)
