// ComfyUI's own safetensors parser, comfy.utils.load_safetensors, which
// comfy.utils.load_torch_file uses instead of safetensors.safe_open when
// DynamicVRAM (comfy-aimdo) is active (ComfyUI #15599, #15602, PR #14989).
// It reads the length, json.loads the header, and for each entry slices the
// data and hands it to torch.frombuffer(...).view(shape): no check of order,
// gaps, overlaps or trailing bytes, so it loads files the reference crate
// rejects, and raises its own errors (or torch's) where the crate raises
// SafetensorError. Two eras answer differently:
// - Checked: comfy/utils.py at 09708ea (after PR #15722): ValueErrors with
//   ComfyUI's "corrupt or invalid" / "corrupt/incomplete" texts.
// - Pin: before PR #15722 (ComfyUI 6db4fa2): no checks, raw torch and Python
//   errors (torch/csrc/utils/tensor_new.cpp frombuffer, ATen InferSize.h).
//   Read from a fork with the same loop and the #15722 diff's context; the
//   pinned file itself is in no stored copy.
// What this model cannot settle it says, with the reason, never a guess.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "spec/model.hpp"

namespace safespec::comfyui {

enum class Era : unsigned char { Checked, Pin };

// ComfyUI's two wrappers add "\n\nFile path: {ckpt}\n\n" and one of these.
enum class Wrap : unsigned char { None, Invalid, Incomplete };

struct Failure {
  std::string error;  // the Python exception class
  std::string text;   // its message before any wrapper
  Wrap wrap = Wrap::None;

  // What the user sees for the file at `path` (ComfyUI passes the path it was given).
  std::string message(std::string_view path) const;
  friend bool operator==(const Failure&, const Failure&) = default;
};

struct Answer {
  std::optional<Failure> failure;  // nullopt: it loads (when `unknown` is empty)
  std::string unknown;             // set: not modelled, and why
  friend bool operator==(const Answer&, const Answer&) = default;
};

// The file's length prefix did not give a header inside the file: `file_size`
// bytes, and `n` the length it declares when it has 8 bytes.
Answer read_prefix(std::uint64_t file_size, std::optional<std::uint64_t> n, Era era);
// A header safespec parsed into `m` with no key repeated.
Answer read_model(const Model& m, Era era);
// Any other header: its N bytes `text` (json.loads of the UTF-8 text).
Answer read_text(std::uint64_t n, std::string_view text, std::uint64_t file_size, Era era);
// Both eras' answers ({Checked, Pin}) from one json.loads of the text: on a
// header of a million keys the parse is most of the check.
std::array<Answer, 2> read_text_eras(std::uint64_t n, std::string_view text, std::uint64_t file_size);

}  // namespace safespec::comfyui
