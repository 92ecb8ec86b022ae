#include "gen/layout.hpp"

#include <algorithm>
#include <utility>

#include "src/report/json_escape.hpp"
#include "src/io/writer.hpp"

namespace safespec::gen {

TensorEntry tensor_entry(std::string name, Dtype d, std::vector<std::uint64_t> shape, std::uint64_t begin,
                         std::uint64_t end) {
  TensorEntry t;
  t.name = std::move(name);
  t.dtype = d;
  t.shape = std::move(shape);
  t.begin = begin;
  t.end = end;
  return t;
}

Plan plan_of(const FileSpec& spec) {
  std::vector<const TensorSpec*> order;
  for (const TensorSpec& t : spec.tensors) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](const TensorSpec* a, const TensorSpec* b) {
    return canonical_less(a->dtype, a->name, b->dtype, b->name);
  });
  Plan p;
  for (const TensorSpec* t : order) {
    const std::uint64_t begin = p.data.size();
    p.data.insert(p.data.end(), t->data.begin(), t->data.end());
    p.tensors.push_back(tensor_entry(t->name, t->dtype, t->shape, begin, p.data.size()));
  }
  if (spec.metadata) {
    p.metadata_state = MetadataState::Present;
    p.metadata = *spec.metadata;
    std::sort(p.metadata.begin(), p.metadata.end());
  }
  return p;
}

std::string object_text(const std::vector<Member>& members) {
  std::string s = "{";
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (i) s += ',';
    s += members[i].key;
    s += ':';
    s += members[i].value;
  }
  return s + "}";
}

std::string shape_text(std::span<const std::uint64_t> shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::vector<Member> tensor_fields(const TensorEntry& t) {
  return {
      {"\"dtype\"", json_string(dtype_name(t.dtype))},
      {"\"shape\"", shape_text(t.shape)},
      {"\"data_offsets\"", "[" + std::to_string(t.begin) + "," + std::to_string(t.end) + "]"},
  };
}

namespace {

std::string metadata_object(const Metadata& m) {
  std::vector<Member> members;
  for (const auto& [k, v] : m) members.push_back({json_string(k), json_string(v)});
  return object_text(members);
}

}  // namespace

Layout layout_of(const Plan& p) {
  Layout l;
  if (p.metadata_state == MetadataState::Present) l.members.push_back({"\"__metadata__\"", metadata_object(p.metadata)});
  if (p.metadata_state == MetadataState::Null) l.members.push_back({"\"__metadata__\"", "null"});
  for (const TensorEntry& t : p.tensors) l.members.push_back({json_string(t.name), object_text(tensor_fields(t))});
  l.data = p.data;
  return l;
}

std::size_t tensor_member(const Plan& p, std::size_t i) {
  return i + (p.metadata_state == MetadataState::Absent ? 0 : 1);
}

std::string header_text(const Layout& l) {
  std::string s = l.leading + object_text(l.members) + l.between;
  if (l.padding)
    s += *l.padding;
  else
    s.resize((s.size() + 7) / 8 * 8, ' ');
  return s;
}

std::vector<std::uint8_t> bytes_of(const Layout& l) {
  const std::string h = header_text(l);
  const std::uint64_t n = l.length ? *l.length : h.size();
  std::vector<std::uint8_t> out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), l.data.begin(), l.data.end());
  return out;
}

std::vector<std::uint8_t> bytes_of(const Plan& p) { return bytes_of(layout_of(p)); }

}  // namespace safespec::gen
