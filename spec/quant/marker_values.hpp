// Reading a marker the way each consumer's Python reads it (comfy-quant-markers.md
// §1.5, §6 items 10-11): dict.get, ComfyUI's top-level-then-params lookup,
// `is True`, truthiness, int(), str().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "spec/python/python_json.hpp"
#include "spec/python/python_repr.hpp"
#include "spec/result.hpp"

namespace safespec::quant {

bool is_dict(const py::Value& v);

// marker.get(key): nullptr when absent (or when marker is not a dict).
const py::Value* get(const py::Value& marker, std::string_view key);

// ComfyUI's lookup for convrot, convrot_groupsize, linear_dtype, group_size
// (CU ops.py:1191-1193, 1203-1205, 1222-1224): top level first, then the
// legacy "params" object when it is a dict.
const py::Value* comfy_get(const py::Value& marker, std::string_view key);

// `v is True`: only JSON true.
bool is_true(const py::Value* v);
// bool(v): Python truthiness (0, 0.0, "", [], {}, None and False are false).
bool truthy(const py::Value& v);
// type(v).__name__: "dict", "list", "str", "int", "float", "bool", "NoneType".
std::string_view type_name(const py::Value& v);

// int(marker.get(key, fallback)), with Python's exceptions.
Result<py::Value, py::PyException> int_of(const py::Value& marker, std::string_view key, std::int64_t fallback);
// str(marker.get(key, fallback)).
std::string str_of(const py::Value& marker, std::string_view key, std::string_view fallback);

// A Python int (Int or BigInt) as int64 when it fits; nullopt otherwise.
std::optional<std::int64_t> as_int64(const py::Value& v);

// The value of `key` as ComfyUI uses it without coercion, when it is a Python
// int or a bool (ComfyUI passes it on as is; a float or a str fails later in
// torch or comfy-kitchen): nullopt for other types.
std::optional<std::int64_t> comfy_int(const py::Value& marker, std::string_view key, std::int64_t fallback);

// str(marker.get("format")), what sglang resolves on (S11): "None" when absent.
std::string sglang_format(const py::Value& marker);

}  // namespace safespec::quant
