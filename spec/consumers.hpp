// The consumer table: every program whose verdicts safespec reproduces, one
// row each, and for each the versions or modes of it that answer differently
// on the same file. Reports, the text table, JSON, SARIF, the C API and the
// Python module iterate this table; a profile is strict or one of its rows.
// Adding a consumer is a row here plus the checks that give it verdicts
// (docs/CONTRIBUTING.md); an incomplete row does not compile.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace safespec {

// The row keys, in table order. safetensors is the reference reader
// (safetensors-format.md); sglang, comfyui and kitchen are
// comfy-quant-markers.md §3, §4 and §5.
enum class Consumer : unsigned char { Safetensors, Sglang, Comfyui, Kitchen };

// How a consumer opens the container before it looks at any layer.
enum class ContainerReader : unsigned char {
  RustCrate,     // the reference crate itself (read_metadata)
  SafeOpen,      // the crate through Python's safetensors.safe_open: SafetensorError
  ComfyuiOwn,    // ComfyUI's own parser, comfy.utils.load_safetensors (DynamicVRAM), with its checks
  ComfyuiOwnPin, // the same before its checks (ComfyUI 6db4fa2): torch's errors
  NotAReader,    // a library handed tensors by its caller (comfy-kitchen)
};
// How a consumer reports a failure: a Rust error variant, or a Python exception.
enum class ErrorStyle : unsigned char { RustVariant, PythonException };
// What one verdict of a consumer is about: each file alone (the reference
// reader reads one file's bytes), or the whole checkpoint (a loader reads
// every file of it before a model exists, and the first failure stops it).
enum class Judges : unsigned char { EachFile, Checkpoint };

std::string_view container_reader_name(ContainerReader r);
// ComfyUI's own parser, in either era: its answer, not the crate's, decides.
constexpr bool own_parser(ContainerReader r) { return r == ContainerReader::ComfyuiOwn || r == ContainerReader::ComfyuiOwnPin; }

// One version or mode of a consumer that answers differently from its others.
struct ConsumerVersion {
  std::string_view id;       // what --consumer NAME=ID and JSON "version" say
  std::string_view follows;  // the upstream commit, release or mode it models
  ContainerReader reader;
  std::string_view when;     // who runs it: one line
};

struct ConsumerInfo {
  Consumer id;
  std::string_view name;     // the JSON key, the profile, --consumer NAME
  std::string_view display;  // as upstream spells the project
  ErrorStyle errors;
  Judges judges;
  std::span<const ConsumerVersion> versions;
  std::size_t default_version;  // what the verdict, the profile and the exit status use unless told
  std::string_view why_default;  // the documented position behind that choice
};

// A verdict may hold for only some versions of its consumer: a bit per
// version, in the table's order. Eight versions a consumer at most.
using VersionMask = std::uint8_t;
inline constexpr std::size_t kMaxVersions = 8;
constexpr VersionMask version_bit(std::size_t v) { return static_cast<VersionMask>(1u << v); }

namespace consumer_rows {

inline constexpr std::array<ConsumerVersion, 1> kSafetensors{{
    {"24b0b28", "huggingface/safetensors 24b0b28 (0.8.0-rc.0), serde_json 1.0.150", ContainerReader::RustCrate,
     "every reader built on the crate"},
}};

// The config classes of multimodal_gen in the versions whose answers differ
// (upstream-since-the-pins.md §6). The first is the set measured against
// sglang's own code; what each builds to read int8 markers is
// spec/quant/sglang_versions.hpp.
inline constexpr std::array<ConsumerVersion, 4> kSglang{{
    {"1bb249c",
     "kitchen_w4a8_config.py 1bb249cd, kitchen_w4a4_config.py e3771fc9 and kitchen_int8_config.py 33e55fd4 "
     "(KitchenInt8Config reads int8-only checkpoints and W4A4's int8 companions: \"Serialized kitchen_int8 layer ...\")",
     ContainerReader::SafeOpen, "sglang from PR #36036 until the kitchen_int8 -> convrot_int8 rename (PR #38040)"},
    {"4422cbf",
     "kitchen_w4a4_config.py 4422cbf4 with ConvRotInt8Config 7c482815 for int8-only checkpoints and W4A4's int8 "
     "companions (\"Serialized convrot_int8 layer ...\", int8 embeddings skipped, and a \"has no kernel\" error "
     "where comfy_kitchen is not installed and sgl-kernel runs)",
     ContainerReader::SafeOpen, "sglang after PR #38040"},
    {"pr36037",
     "kitchen_w4a8_config.py of PR #36037 (search-index id 57699856416; skips only tensorwise-scalar int8 markers)",
     ContainerReader::SafeOpen, "sglang between PR #36037 and PR #38506"},
    {"321f98d",
     "kitchen_w4a8_config.py 321f98d4 (the first: no embedding skip, no format check in get_quant_method)",
     ContainerReader::SafeOpen, "sglang as PR #36036 first merged it"},
}};

// comfy.utils.load_torch_file picks its parser on
// comfy.memory_management.aimdo_enabled (ComfyUI #15599, #15602, PR #14989).
inline constexpr std::array<ConsumerVersion, 3> kComfyui{{
    {"safe-open",
     "ComfyUI 6db4fa2 through safetensors.safe_open (the reference crate; with safetensors >= 0.6 its "
     "corrupt-file wrapper never matches, so SafetensorError reaches the user)",
     ContainerReader::SafeOpen,
     "DynamicVRAM off: --disable-dynamic-vram, --highvram, --gpu-only, --novram, --cpu, or a GPU it does not "
     "support (not NVIDIA, ROCm < 7.14)"},
    {"dynamic-vram",
     "comfy/utils.py load_safetensors at 09708ea (after PR #15722: header, offset and size checks with "
     "ComfyUI's own ValueError texts)",
     ContainerReader::ComfyuiOwn,
     "the default since PR #12658 on NVIDIA GPUs (and ROCm >= 7.14), or --enable-dynamic-vram"},
    {"dynamic-vram-6db4fa2",
     "comfy/utils.py load_safetensors before PR #15722 (ComfyUI 6db4fa2: no checks, torch.frombuffer and "
     "view errors; read from a fork with the same loop, the pinned file is in no stored copy)",
     ContainerReader::ComfyuiOwnPin, "ComfyUI releases with DynamicVRAM from before PR #15722"},
}};

// 2a6f4ef reads 6-bit W4A8 storage (W6A8); only its eager backend and
// stream packer are stored, so on every other layer it is taken to answer as
// 7d86acf (quant-layers.md L16, W6A8).
inline constexpr std::array<ConsumerVersion, 3> kKitchen{{
    {"0.2.27", "comfy-kitchen v0.2.27 (5aab6c4), as ComfyUI pins it", ContainerReader::NotAReader,
     "ComfyUI's requirements.txt"},
    {"0.2.31", "comfy-kitchen v0.2.31 (7c6ca3a) and main at 7d86acf", ContainerReader::NotAReader,
     "pip install -U comfy-kitchen"},
    {"2a6f4ef",
     "comfy-kitchen main with W6A8 storage: backends/eager/w4a8_int8.py 2a6f4ef9 and tensor/w4a8_stream.py "
     "2b710abb (search-index copies; its tensor layout is in no stored copy, so a 4-bit layer is judged as "
     "7d86acf judges it)",
     ContainerReader::NotAReader, "comfy-kitchen built from main for W6A8 checkpoints"},
}};

}  // namespace consumer_rows

inline constexpr std::array<ConsumerInfo, 4> kConsumerTable{{
    {Consumer::Safetensors, "safetensors", "huggingface/safetensors", ErrorStyle::RustVariant, Judges::EachFile,
     consumer_rows::kSafetensors, 0, "one version"},
    {Consumer::Sglang, "sglang", "sglang (multimodal_gen)", ErrorStyle::PythonException, Judges::Checkpoint,
     consumer_rows::kSglang, 0,
     "the set whose rules and messages were measured against sglang's own code (1,176 of 1,189 checkpoints agree "
     "exactly); the others are read from their source and shown where they differ"},
    {Consumer::Comfyui, "comfyui", "ComfyUI", ErrorStyle::PythonException, Judges::Checkpoint,
     consumer_rows::kComfyui, 0,
     "safe-open runs on every machine, and every file dynamic-vram rejects it rejects too, so its \"loads\" "
     "holds in both modes"},
    {Consumer::Kitchen, "kitchen", "comfy-kitchen", ErrorStyle::PythonException, Judges::Checkpoint,
     consumer_rows::kKitchen, 0,
     "the version ComfyUI pins, which its users run"},
}};

namespace detail {
constexpr bool row_complete(const ConsumerInfo& c, std::size_t at) {
  if (static_cast<std::size_t>(c.id) != at || c.name.empty() || c.display.empty() || c.why_default.empty())
    return false;
  if (c.versions.empty() || c.versions.size() > kMaxVersions || c.default_version >= c.versions.size()) return false;
  for (const ConsumerVersion& v : c.versions)
    if (v.id.empty() || v.follows.empty() || v.when.empty()) return false;
  for (std::size_t i = 0; i < c.versions.size(); ++i)
    for (std::size_t j = i + 1; j < c.versions.size(); ++j)
      if (c.versions[i].id == c.versions[j].id) return false;
  // A Python consumer opens files through some reader or is handed tensors.
  return c.errors == ErrorStyle::PythonException || c.versions[0].reader == ContainerReader::RustCrate;
}
constexpr bool table_complete() {
  for (std::size_t i = 0; i < kConsumerTable.size(); ++i) {
    if (!row_complete(kConsumerTable[i], i)) return false;
    for (std::size_t j = i + 1; j < kConsumerTable.size(); ++j)
      if (kConsumerTable[i].name == kConsumerTable[j].name) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::table_complete(),
              "every consumer row needs its key in order, a unique name, a display name, versions with ids, what "
              "each follows and who runs it, and a default version with the reason for it");

inline constexpr std::array<Consumer, kConsumerTable.size()> kConsumers = [] {
  std::array<Consumer, kConsumerTable.size()> out{};
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = kConsumerTable[i].id;
  return out;
}();

constexpr const ConsumerInfo& consumer_info(Consumer c) { return kConsumerTable[static_cast<std::size_t>(c)]; }
constexpr std::string_view consumer_name(Consumer c) { return consumer_info(c).name; }
std::optional<Consumer> consumer_by_name(std::string_view name);
// The version `id` of consumer c, by its position in the row.
std::optional<std::size_t> version_by_id(Consumer c, std::string_view id);
constexpr bool has_versions(Consumer c) { return consumer_info(c).versions.size() > 1; }
constexpr bool judges_each_file(Consumer c) { return consumer_info(c).judges == Judges::EachFile; }

// One T per consumer, indexed by the consumer itself, never by a number.
template <class T>
class ByConsumer {
 public:
  constexpr T& operator[](Consumer c) { return v_[static_cast<std::size_t>(c)]; }
  constexpr const T& operator[](Consumer c) const { return v_[static_cast<std::size_t>(c)]; }
  friend bool operator==(const ByConsumer&, const ByConsumer&) = default;

 private:
  std::array<T, kConsumerTable.size()> v_{};
};

// Which version of each consumer a report's verdicts, profile and exit status use.
using VersionChoice = ByConsumer<std::uint8_t>;
constexpr VersionChoice default_versions() {
  VersionChoice out;
  for (const ConsumerInfo& c : kConsumerTable) out[c.id] = static_cast<std::uint8_t>(c.default_version);
  return out;
}

// A profile: strict (every rule, every consumer's verdict), or one consumer's
// view of the file. Its name is "strict" or the consumer's.
class Profile {
 public:
  constexpr Profile() = default;
  static constexpr Profile of(Consumer c) {
    Profile p;
    p.row_ = static_cast<unsigned char>(static_cast<unsigned>(c) + 1);
    return p;
  }
  static const Profile Strict, Safetensors, Sglang, Comfyui, Kitchen;
  constexpr bool strict() const { return row_ == 0; }
  constexpr std::optional<Consumer> consumer() const {
    if (row_ == 0) return std::nullopt;
    return static_cast<Consumer>(row_ - 1);
  }
  friend constexpr bool operator==(Profile, Profile) = default;

 private:
  unsigned char row_ = 0;
};
inline constexpr Profile Profile::Strict{};
inline constexpr Profile Profile::Safetensors = Profile::of(Consumer::Safetensors);
inline constexpr Profile Profile::Sglang = Profile::of(Consumer::Sglang);
inline constexpr Profile Profile::Comfyui = Profile::of(Consumer::Comfyui);
inline constexpr Profile Profile::Kitchen = Profile::of(Consumer::Kitchen);

inline constexpr std::array<Profile, 1 + kConsumerTable.size()> kProfiles = [] {
  std::array<Profile, 1 + kConsumerTable.size()> out{};
  for (std::size_t i = 0; i < kConsumerTable.size(); ++i) out[i + 1] = Profile::of(kConsumerTable[i].id);
  return out;
}();

constexpr std::string_view profile_name(Profile p) {
  return p.consumer() ? consumer_name(*p.consumer()) : std::string_view("strict");
}

}  // namespace safespec
