// From a path or an in-memory file to a Model, through the fast parser.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "spec/comfyui_parser.hpp"
#include "spec/model.hpp"
#include "spec/reference/reference_reader.hpp"
#include "spec/result.hpp"
#include "src/io/byte_file.hpp"
#include "src/parse/header_parser.hpp"

namespace safespec {

// Outer: could the file be read at all (exit 2). Inner: does it parse (F1-F6).
using LoadResult = Result<Result<Model>, IoError>;

LoadResult load_model(const std::string& path, HeaderParser& parser);

// A file read twice over the same header bytes: safespec's model (through
// the fast parser) and the reference reader's own answer on the file.
struct LoadedFile {
  std::uint64_t file_size = 0;
  std::uint64_t header_length = 0;  // N, when the prefix was valid
  Result<Model> model;
  reference::Answer reference;
  // ComfyUI's own parser (DynamicVRAM) on the same bytes, per era.
  std::array<comfyui::Answer, 2> comfyui{};
};

Result<LoadedFile, IoError> load_file(const std::string& path, HeaderParser& parser);
// The same from a file already open (a URL whose first request's head and
// connection the caller reads on from).
Result<LoadedFile, IoError> load_file(const ByteFile& file, HeaderParser& parser);
LoadedFile read_file_memory(std::span<const std::uint8_t> file, HeaderParser& parser);
// The same as read_file_memory, through the path load_file takes for a local
// file: the header read `window` bytes at a time (kHeaderWindowBytes there).
// Tests and the differential fuzzer cut texts everywhere with small windows.
LoadedFile read_file_windowed(std::span<const std::uint8_t> file, HeaderParser& parser, std::size_t window);

// The same pipeline over bytes in memory (fuzzers, tests). Copies the header
// into a padded buffer; never reads past `file`.
Result<Model> read_model_fast(std::span<const std::uint8_t> file, HeaderParser& parser);

// What a file that is not a safetensors file looks like, from its first
// bytes: "this is a Git LFS pointer file, ...", "this is a JSON file, ...",
// or "" when it looks like neither. hint_for_path reads the file's first bytes.
std::string hint_for_bytes(std::span<const std::uint8_t> first);
std::string hint_for_path(const std::string& path);

}  // namespace safespec
