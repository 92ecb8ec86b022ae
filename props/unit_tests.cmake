# Unit tests: one rule, one small hand-built file, exact rule id, where and
# message (shared/reference/safetensors-format.md rule numbers in test names).
set(SAFESPEC_UNIT_TESTS
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_support.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_smoke_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_prefix_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_json_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_model_rules_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_strict_rules_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_place_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_finding_sink_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_writer_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_shard_index_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_upstream_vectors_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_cli_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_check_output_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_address_limit_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_check_jobs_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_cli_docs_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_python_repr_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_python_json_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_number_formats_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/quant_support.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_markers_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_sglang_layers_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_sglang_answers_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_analyze_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_fp8_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_nvfp4_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_mxfp8_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_int8_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_w4a4_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_w4a8_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_awq_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_data_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_data_stream_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_w4a8_reference_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_dequant_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_int_linear_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_conformance_manifest_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_linear_cli_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_conformance_suite_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_consumer_matrix_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_fuzz_oracles_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_hardening_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_reference_answers_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_serde_number_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_reference_reader_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_plain_header_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_header_memory_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_reports_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_inspect_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_diff_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_unchecked_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_rule_coverage_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_remote_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_consumer_table_test.cpp
)

# The CLI tests run the built binary (unit_cli_test.cpp). props/CMakeLists.txt
# applies these with target_compile_definitions(safespec_props PRIVATE ...)
# and add_dependencies(safespec_props safespec); without them the test finds
# the binary beside the props/ build directory.
set(SAFESPEC_UNIT_TESTS_DEFINITIONS SAFESPEC_CLI="$<TARGET_FILE:safespec>"
    SAFESPEC_VECTORS_DIR="${PROJECT_SOURCE_DIR}/corpus/vectors")
# The HTTP server the remote-checkpoint tests start (unit_remote_test.cpp).
list(APPEND SAFESPEC_UNIT_TESTS_DEFINITIONS SAFESPEC_HTTP_SERVER="${CMAKE_CURRENT_SOURCE_DIR}/http_range_server.py")
# The reference reader's answers on 3,000 headers (unit_reference_answers_test.cpp).
list(APPEND SAFESPEC_UNIT_TESTS_DEFINITIONS SAFESPEC_REFERENCE_ANSWERS_DIR="${PROJECT_SOURCE_DIR}/corpus/reference_answers")
# sglang's own answers on the suite and the quant examples (unit_sglang_answers_test.cpp).
list(APPEND SAFESPEC_UNIT_TESTS_DEFINITIONS SAFESPEC_SGLANG_ANSWERS_DIR="${PROJECT_SOURCE_DIR}/corpus/sglang_answers")
# The committed conformance suite (unit_conformance_suite_test.cpp).
list(APPEND SAFESPEC_UNIT_TESTS_DEFINITIONS SAFESPEC_CONFORMANCE_DIR="${PROJECT_SOURCE_DIR}/corpus/conformance")

# The conformance runners.
list(APPEND SAFESPEC_UNIT_TESTS
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_conformance_template_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_conformance_run_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_conformance_select_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_conformance_numeric_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_vectors_cli_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_npy_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_compare_histogram_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_sglang_versions_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_cli_words_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_checkpoint_plan_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_compare_npy_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_check_fold_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_progress_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_parallel_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_checkpoint_report_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_rule_anchors_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_decided_once_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_svdquant_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_logical_size_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_legacy_int8_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_quant_w6a8_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/prop_w6a8_reference_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_format_table_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_vectors_formats_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_layer_error_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_tensor_table_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_remote_requests_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_held_stream_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_dequant_npy_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/unit_plain_metadata_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/json_support.cpp
)
