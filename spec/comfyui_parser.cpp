#include "spec/comfyui_parser.hpp"

#include <array>
#include <variant>
#include <vector>

#include "spec/checked_math.hpp"
#include "spec/dtype.hpp"
#include "spec/limits.hpp"
#include "spec/python/python_json.hpp"
#include "spec/python/python_repr.hpp"
#include "spec/utf8.hpp"

namespace safespec::comfyui {

namespace {

// ComfyUI's _TYPES ("Current as of safetensors 0.7.0"): no F8_E8M0, F4, F6
// or FNUZ, so a tensor of those raises KeyError in this parser.
struct TorchType {
  std::string_view name;
  unsigned itemsize;
};
constexpr std::array<TorchType, 16> kTypes{{{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
                                            {"I32", 4}, {"I16", 2}, {"I8", 1}, {"U8", 1}, {"BOOL", 1},
                                            {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"C64", 8}, {"U64", 8},
                                            {"U32", 4}, {"U16", 2}}};

const TorchType* torch_type(std::string_view name) {
  for (const TorchType& t : kTypes)
    if (t.name == name) return &t;
  return nullptr;
}

// The header text ComfyUI re-reads as Python when safespec's parser refused
// it: small enough that a Python value of it stays cheap.
constexpr std::uint64_t kTextLimit = std::uint64_t{16} << 20;

Answer fails(std::string error, std::string text, Wrap wrap = Wrap::None) {
  return Answer{Failure{std::move(error), std::move(text), wrap}, {}};
}
Answer unknown(std::string why) { return Answer{std::nullopt, std::move(why)}; }
Answer key_error(std::string_view key) { return fails("KeyError", py::repr_str(key)); }

// A Python int as the walk needs it: within ±(2^64 - 1), else not modelled.
struct Int {
  bool negative = false;
  std::uint64_t magnitude = 0;
};

// One header entry, whatever it was read from. A field is absent, an Int
// (list) of the expected shape, or something else the walk does not model.
struct Entry {
  std::string_view name;  // borrowed from the model or the Python value, never copied: names reach 100 MB
  bool has_offsets = false, offsets_ok = false;
  std::size_t offsets_count = 0;  // a list's length, when offsets_ok is false but it is a list
  bool offsets_list = false;
  Int start, end;
  bool has_dtype = false, dtype_is_str = false;
  std::string_view dtype;
  bool has_shape = false, shape_ok = false;
  std::vector<Int> shape;
};

// math.prod(shape) * itemsize == bytes, in Python's unbounded ints.
bool size_matches(const std::vector<Int>& shape, unsigned itemsize, std::uint64_t bytes) {
  for (const Int& d : shape)
    if (d.magnitude == 0) return bytes == 0;
  std::uint64_t p = itemsize;
  bool negative = false;
  for (const Int& d : shape) {
    negative = negative != d.negative;
    const auto next = checked_mul(p, d.magnitude);
    if (!next) return false;  // past 2^64 with no zero: more than any byte count
    p = *next;
  }
  return !negative && p == bytes;
}

bool any_negative(const std::vector<Int>& shape) {
  for (const Int& d : shape)
    if (d.negative) return true;
  return false;
}

std::string shape_text(const std::vector<Int>& shape) {  // c10's IntArrayRef: [2, 2]
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i].magnitude);
  return out + "]";
}

Answer unpack_error(const Entry& e) {
  if (!e.offsets_list) return unknown("data_offsets of tensor " + py::repr_str(e.name) + " is not a list of integers");
  if (e.offsets_count > 2) return fails("ValueError", "too many values to unpack (expected 2)");
  if (e.offsets_count < 2)
    return fails("ValueError", "not enough values to unpack (expected 2, got " + std::to_string(e.offsets_count) + ")");
  return unknown("data_offsets of tensor " + py::repr_str(e.name) + " holds a value that is not an integer");
}

// The Checked era's loop body (09708ea).
Answer walk_checked(const Entry& e, std::uint64_t data_size) {
  if (!e.has_offsets) return key_error("data_offsets");
  if (!e.offsets_ok) return unpack_error(e);
  if (!e.has_dtype) return key_error("dtype");
  if (!e.dtype_is_str) return unknown("the dtype of tensor " + py::repr_str(e.name) + " is not a string");
  const TorchType* t = torch_type(e.dtype);
  if (!t) return key_error(e.dtype);
  // Built only on failure: names reach 100 MB.
  const auto name = [&] { return "Tensor '" + std::string(e.name) + "'"; };
  if (e.start.negative || (e.end.negative && !e.start.negative) ||
      (!e.end.negative && e.end.magnitude < e.start.magnitude))
    return fails("ValueError", name() + " has invalid data offsets.", Wrap::Invalid);
  if (e.end.magnitude > data_size) return fails("ValueError", name() + " extends past the end of the file.", Wrap::Incomplete);
  if (!e.has_shape) return key_error("shape");
  if (!e.shape_ok) return unknown("the shape of tensor " + py::repr_str(e.name) + " is not a list of integers");
  if (!size_matches(e.shape, t->itemsize, e.end.magnitude - e.start.magnitude))
    return fails("ValueError", name() + " does not match its declared shape and dtype.", Wrap::Invalid);
  if (any_negative(e.shape)) return unknown("tensor " + py::repr_str(e.name) + " has a negative dimension");
  return {};
}

// The Pin era's loop body: torch.empty for start == end, else
// torch.frombuffer(mv[start:end], dtype=...).view(shape).
Answer walk_pin(const Entry& e, std::uint64_t data_size) {
  if (!e.has_offsets) return key_error("data_offsets");
  if (!e.offsets_ok) return unpack_error(e);
  if (e.start.negative || e.end.negative)
    return unknown("tensor " + py::repr_str(e.name) + " has a negative data offset (a Python slice from the end)");
  const auto dtype = [&]() -> std::variant<const TorchType*, Answer> {
    if (!e.has_dtype) return key_error("dtype");
    if (!e.dtype_is_str) return unknown("the dtype of tensor " + py::repr_str(e.name) + " is not a string");
    const TorchType* t = torch_type(e.dtype);
    if (!t) return key_error(e.dtype);
    return t;
  };
  if (e.start.magnitude == e.end.magnitude) {  // torch.empty(info["shape"], dtype=_TYPES[info["dtype"]])
    if (!e.has_shape) return key_error("shape");
    if (!e.shape_ok) return unknown("the shape of tensor " + py::repr_str(e.name) + " is not a list of integers");
    auto t = dtype();
    if (auto* a = std::get_if<Answer>(&t)) return *a;
    if (any_negative(e.shape)) return unknown("tensor " + py::repr_str(e.name) + " has a negative dimension");
    return {};
  }
  const std::uint64_t lo = std::min(e.start.magnitude, data_size), hi = std::min(e.end.magnitude, data_size);
  const std::uint64_t len = hi > lo ? hi - lo : 0;
  auto d = dtype();
  if (auto* a = std::get_if<Answer>(&d)) return *a;
  const TorchType* t = std::get<const TorchType*>(d);
  if (len == 0) return fails("ValueError", "both buffer length (0) and count (-1) must not be 0");
  if (len % t->itemsize != 0)
    return fails("ValueError", "buffer length (" + std::to_string(len) + " bytes) after offset (0 bytes) must be a "
                               "multiple of element size (" + std::to_string(t->itemsize) + ")");
  if (!e.has_shape) return key_error("shape");
  if (!e.shape_ok) return unknown("the shape of tensor " + py::repr_str(e.name) + " is not a list of integers");
  if (any_negative(e.shape)) return unknown("tensor " + py::repr_str(e.name) + " has a negative dimension");
  for (const Int& dim : e.shape)
    if (dim.magnitude > static_cast<std::uint64_t>(INT64_MAX))
      return unknown("tensor " + py::repr_str(e.name) + " has a dimension past torch's int64");
  if (!size_matches(e.shape, t->itemsize, len))
    return fails("RuntimeError", "shape '" + shape_text(e.shape) + "' is invalid for input of size " +
                                     std::to_string(len / t->itemsize));
  return {};
}

Answer walk(const std::vector<Entry>& entries, std::uint64_t data_size, Era era) {
  for (const Entry& e : entries) {
    Answer a = era == Era::Checked ? walk_checked(e, data_size) : walk_pin(e, data_size);
    if (a.failure || !a.unknown.empty()) return a;
  }
  return {};
}

std::optional<Int> as_int(const py::Value& v) {
  if (const auto* i = std::get_if<py::Int>(&v.data)) return Int{i->negative && i->magnitude != 0, i->magnitude};
  return std::nullopt;
}

const py::Value* lookup(const py::Dict& d, std::string_view key) {
  const py::Value* found = nullptr;
  for (const py::DictEntry& e : d.items)
    if (const auto* k = std::get_if<std::string>(&e.key.data); k && *k == key) found = &e.value;
  return found;
}

std::string_view type_name(const py::Value& v) {
  constexpr std::array<std::string_view, 9> kNames{"NoneType", "bool", "int", "float", "str",
                                                   "list",     "tuple", "dict", "int"};
  return kNames[v.data.index()];
}

// One header entry of a Python value, or why it is not modelled.
std::variant<Entry, Answer> entry_of(const std::string& name, const py::Value& info) {
  const auto* d = std::get_if<py::Dict>(&info.data);
  // info["data_offsets"] on what json.loads made of a non-object entry.
  if (std::holds_alternative<py::List>(info.data)) return fails("TypeError", "list indices must be integers or slices, not str");
  if (std::holds_alternative<py::Int>(info.data) || std::holds_alternative<py::BigInt>(info.data) ||
      std::holds_alternative<double>(info.data) || std::holds_alternative<bool>(info.data) ||
      std::holds_alternative<py::None>(info.data))
    return fails("TypeError", "'" + std::string(type_name(info)) + "' object is not subscriptable");
  if (!d) return unknown("the entry of tensor " + py::repr_str(name) + " is a " + std::string(type_name(info)) +
                         ", not an object");
  Entry e;
  e.name = name;
  if (const py::Value* o = lookup(*d, "data_offsets")) {
    e.has_offsets = true;
    if (const auto* l = std::get_if<py::List>(&o->data)) {
      e.offsets_list = true;
      e.offsets_count = l->items.size();
      if (l->items.size() == 2) {
        auto a = as_int(l->items[0]), b = as_int(l->items[1]);
        if (a && b) {
          e.offsets_ok = true;
          e.start = *a;
          e.end = *b;
        }
      }
    }
  }
  if (const py::Value* t = lookup(*d, "dtype")) {
    e.has_dtype = true;
    if (const auto* s = std::get_if<std::string>(&t->data)) {
      e.dtype_is_str = true;
      e.dtype = *s;
    }
  }
  if (const py::Value* s = lookup(*d, "shape")) {
    e.has_shape = true;
    if (const auto* l = std::get_if<py::List>(&s->data)) {
      e.shape_ok = true;
      for (const py::Value& x : l->items) {
        auto i = as_int(x);
        if (!i) {
          e.shape_ok = false;
          break;
        }
        e.shape.push_back(*i);
      }
    }
  }
  return e;
}

}  // namespace

std::string Failure::message(std::string_view path) const {
  if (wrap == Wrap::None) return text;
  const std::string_view tail =
      wrap == Wrap::Invalid ? "The safetensors file is corrupt or invalid. Make sure this is actually a safetensors file "
                              "and not a ckpt or pt or other filetype."
                            : "The safetensors file is corrupt/incomplete. Check the file size and make sure you have "
                              "copied/downloaded it correctly.";
  return text + "\n\nFile path: " + std::string(path) + "\n\n" + std::string(tail);
}

Answer read_prefix(std::uint64_t file_size, std::optional<std::uint64_t> n, Era era) {
  if (era == Era::Pin)
    return unknown("a length prefix that gives no header: the pinned parser reads what comfy_aimdo maps, not modelled");
  if (file_size < 8 || !n) return fails("ValueError", "The safetensors header is incomplete.", Wrap::Incomplete);
  if (*n > kMaxHeaderSize) return fails("ValueError", "The safetensors header is too large.", Wrap::Invalid);
  if (*n > file_size - 8) return fails("ValueError", "The safetensors header is incomplete.", Wrap::Incomplete);
  return unknown("a header of " + std::to_string(*n) + " bytes that was not read");
}

Answer read_model(const Model& m, Era era) {
  if (!m.header.duplicates.empty()) return unknown("a key repeated in the header (Python keeps its last value)");
  // One entry reused for every tensor: this runs on every file checked.
  Entry e;
  e.has_offsets = e.offsets_ok = e.offsets_list = true;
  e.offsets_count = 2;
  e.has_dtype = e.dtype_is_str = true;
  e.has_shape = e.shape_ok = true;
  for (const TensorEntry& t : m.header.tensors) {
    e.name = t.name.view();
    e.start = Int{false, t.begin};
    e.end = Int{false, t.end};
    e.dtype = dtype_name(t.dtype);
    e.shape.clear();
    for (std::uint64_t d : t.shape) e.shape.push_back(Int{false, d});
    Answer a = era == Era::Checked ? walk_checked(e, m.buffer_size()) : walk_pin(e, m.buffer_size());
    if (a.failure || !a.unknown.empty()) return a;
  }
  return {};
}

namespace {

// json.loads of the text, done once for both eras; `both` when the answer
// does not depend on the era.
struct LoadedText {
  std::optional<Answer> both;
  Result<py::Value, py::JsonLoadError> loaded = py::JsonLoadError{};
};

LoadedText load_text(std::uint64_t n, std::string_view text) {
  if (n > kTextLimit) return {unknown("a header over 16 MiB that safespec's parser refused is not read again as Python")};
  // mv[8:8+n].tobytes().decode("utf-8"): strict, where json.loads(bytes) would pass surrogates.
  py::LoadLimits limits{static_cast<std::size_t>(kTextLimit), kPythonJsonDepth};
  LoadedText out;
  if (first_invalid_utf8(text)) {
    auto viaBytes = py::loads(text, limits);
    if (viaBytes || viaBytes.error().kind != py::JsonErrorKind::UnicodeDecodeError ||
        !viaBytes.error().message.starts_with("'utf-8' codec"))
      return {unknown("a header that is not UTF-8 in a way Python's decoder names differently")};
    out.loaded = std::move(viaBytes);
  } else {
    out.loaded = py::loads_str(text, limits);
  }
  return out;
}

Answer answer_text(const Result<py::Value, py::JsonLoadError>& loaded, std::uint64_t n, std::uint64_t file_size, Era era) {
  if (!loaded) {
    const py::JsonLoadError& e = loaded.error();
    switch (e.kind) {
      case py::JsonErrorKind::JSONDecodeError:
      case py::JsonErrorKind::UnicodeDecodeError:
        if (era == Era::Checked) return fails("ValueError", e.message, Wrap::Invalid);
        return fails(std::string(py::kind_name(e.kind)), e.message);
      case py::JsonErrorKind::ValueError: return fails("ValueError", e.message);
      default: return unknown("a header nested so deep that Python's limit depends on the caller");
    }
  }
  const py::Value& header = loaded.value();
  const auto* d = std::get_if<py::Dict>(&header.data);
  if (!d) {
    if (era == Era::Checked) return fails("ValueError", "The safetensors header is invalid.", Wrap::Invalid);
    return fails("AttributeError", "'" + std::string(type_name(header)) + "' object has no attribute 'items'");
  }
  std::vector<Entry> entries;
  for (const py::DictEntry& item : d->items) {
    const auto* name = std::get_if<std::string>(&item.key.data);
    if (!name || *name == "__metadata__") continue;
    auto e = entry_of(*name, item.value);
    if (auto* a = std::get_if<Answer>(&e)) {
      // The entries before it decide first.
      Answer before = walk(entries, file_size - 8 - n, era);
      return before.failure || !before.unknown.empty() ? before : *a;
    }
    entries.push_back(std::get<Entry>(std::move(e)));
  }
  return walk(entries, file_size - 8 - n, era);
}

}  // namespace


Answer read_text(std::uint64_t n, std::string_view text, std::uint64_t file_size, Era era) {
  LoadedText l = load_text(n, text);
  return l.both ? *l.both : answer_text(l.loaded, n, file_size, era);
}

std::array<Answer, 2> read_text_eras(std::uint64_t n, std::string_view text, std::uint64_t file_size) {
  LoadedText l = load_text(n, text);
  if (l.both) return {*l.both, *l.both};
  return {answer_text(l.loaded, n, file_size, Era::Checked), answer_text(l.loaded, n, file_size, Era::Pin)};
}

}  // namespace safespec::comfyui
