# RapidCheck properties (Catch2 v2 + rc::prop), tagged [prop]. Few translation
# units on purpose: each one compiles slowly. Generators live in gen/.
set(SAFESPEC_PROPERTY_TESTS
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_roundtrip_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_shard_index_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_plain_index_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_mutations_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_differential_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_quant_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_w4a8_reference_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_w4a8_fast_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_w4a8_lanes_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_dequant_fast_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_w4a8_dump_fast_test.cpp
  # New files go last: unity batches are cut in list order (eight files,
  # unit tests first), and a file put anywhere else moves every later file
  # into another batch, where same-named helpers of two files can collide.
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_in_order_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_pieced_read_test.cpp
)
