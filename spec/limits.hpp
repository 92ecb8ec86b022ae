// Every bound safespec applies, in one place: what it is, why it is what it
// is, and whose it is. "Reference" bounds are the consumers' own (a file past
// them is rejected upstream too, and safespec says so as a finding). "Ours"
// bounds keep safespec's memory and time in proportion to its input; an input
// past one of them is reported as unchecked or as a finding that names the
// bound, never judged as if it had been read (docs/cli.md, "No silent limits").
#pragma once

#include <cstddef>
#include <cstdint>

namespace safespec {

// ---- The container (safetensors-format.md) ----

// Reference (F3, MAX_HEADER_SIZE): the reader rejects a longer header.
inline constexpr std::uint64_t kMaxHeaderSize = 100'000'000;

// Reference (F6.6): serde_json starts at remaining_depth 128 and fails when a
// container brings it to 0, so 127 nested containers are the most it reads
// (the top-level object counts as one).
inline constexpr int kMaxJsonDepth = 127;

// Ours: the model lists the first this-many repeated keys and unknown fields,
// and every rule lists this many findings, then counts the rest; a header of
// millions of repeats costs memory in proportion to what is worth reporting.
inline constexpr std::size_t kMaxRecords = 1000;

// Ours: keys remembered per object when looking for repeats inside values the
// reference ignores (X3); repeats among keys after this many go unreported.
inline constexpr std::size_t kMaxKeysChecked = 4096;

// Ours: a local file's header is read this many bytes at a time into one
// buffer that the parser reads from (src/parse/load.cpp), so a 100 MB header is not
// held whole; the buffer grows only for a tensor entry or a metadata object
// longer than half of it (never past the header). Small enough to stay in
// L2 cache between the read and the parse.
inline constexpr std::size_t kHeaderWindowBytes = std::size_t{256} << 10;

// Ours: a model.safetensors.index.json over this is refused (ST-INDEX-JSON);
// the indexes of the largest published models are a few MB.
inline constexpr std::uint64_t kMaxIndexBytes = std::uint64_t{256} << 20;

// Ours: threads that read and parse the files of one `check` (--jobs; the
// default is one per hardware thread, up to this). Each holds one header
// being parsed, so this also bounds how many headers are in flight at once.
inline constexpr unsigned kMaxCheckJobs = 64;

// The names a directory's collision walk sizes its table for before it has
// read them all (src/commands/check.cpp): its first file's tensors times the files,
// at most this many (a 16 MiB table); past that the table grows as names come.
inline constexpr std::size_t kWalkExpectedNames = std::size_t{1} << 20;

// ---- Markers and Python's json (comfy-quant-markers.md M3) ----

// Ours: real markers are under 200 bytes; a larger marker tensor is reported
// (CQ-MARKER-SIZE) but still read and parsed as the consumers parse it, up to
// kMaxMarkerReadBytes.
inline constexpr std::uint64_t kMaxMarkerBytes = std::uint64_t{1} << 20;
// Ours: a marker, or a _quantization_metadata text, over this is not read;
// its layer is unchecked and no consumer that parses it is said to load.
inline constexpr std::uint64_t kMaxMarkerReadBytes = std::uint64_t{16} << 20;
// Ours: of a file's markers over kMaxMarkerBytes, the first this-many bytes
// (in keys() order) are read; the rest are unchecked alike.
inline constexpr std::uint64_t kMaxLargeMarkerBytesPerFile = std::uint64_t{64} << 20;
// Ours: distinct marker texts whose parse is kept for the layers that repeat
// them, and the longest text kept (at most 1 MiB held: a header of distinct
// markers parses each one, as before).
inline constexpr std::size_t kMaxParsedMarkersKept = 256;
inline constexpr std::size_t kMaxParsedMarkerKeptBytes = 4096;
// Ours: a --layers FILE (a JSON map of layer kinds) over this is refused.
inline constexpr std::uint64_t kMaxLayersFileBytes = std::uint64_t{16} << 20;

// Reference (CPython 3.11): json.loads called from a script's top level
// accepts 995 nested containers and raises RecursionError at 996; the figure
// depends on the caller's stack depth, and this is the one safespec uses.
inline constexpr std::size_t kPythonJsonDepth = 995;

// Ours: a config.json beside a checkpoint over this is not read (its legacy
// INT8 declaration, spec/quant/model_config.hpp, is then unchecked). Real ones
// are a few kilobytes; the bound keeps a stray large file out of memory.
inline constexpr std::uint64_t kMaxModelConfigBytes = std::uint64_t{16} << 20;
// Ours: the most a caller may ask for (the scanner recurses, two stack
// frames a level).
inline constexpr std::size_t kPythonJsonDepthCap = 2000;
// Reference (CPython 3.11, sys.get_int_max_str_digits()): int() of a longer
// decimal string raises ValueError, and so does json.loads.
inline constexpr std::size_t kPythonIntMaxStrDigits = 4300;

// ---- Tensor data (--data, compare, dequant, linear) ----

// Ours: the most of one tensor that `linear`, `dequant` and `compare` hold in
// memory (they compute on whole tensors); a larger one is not read.
inline constexpr std::uint64_t kMaxTensorBytes = std::uint64_t{256} << 20;

// --data has no bound on a tensor's size nor on what a run reads: the value
// rules stream each tensor (src/io/tensor_data.hpp) in pieces of
// kDataChunkBytes, one piece per thread in memory at a time, so a 20 GB
// checkpoint costs its reading time and a few MiB. What stays bounded:
// - memory: kDataThreadsMax x kDataChunkBytes of buffers (8 MiB; a URL's
//   checkpoint: one kDataChunkBytesRemote piece, on one thread);
// - time: a tensor whose data_offsets overlap another tensor's in the same
//   file is not read (unchecked). Valid files have none (F8: the reference
//   and every consumer reject overlaps), and without this a 100 MB header of
//   a million layers that all claim the same 20 GB would read for weeks;
//   with it, a run reads each byte of its files at most twice (nvfp4 and
//   mxfp8 block scales are scanned by two rules).
// Ours: the bytes one pread() brings in for --data, per thread: big enough
// that a read costs little more than its copy, small enough to stay in a
// core's L2 cache while the rules scan it.
inline constexpr std::uint64_t kDataChunkBytes = std::uint64_t{1} << 20;
// Ours: the same for an http(s):// checkpoint, where each piece is one
// ranged request (about 100 ms of latency each): most tensors are then one
// request, and a 20 GB tensor some 300.
inline constexpr std::uint64_t kDataChunkBytesRemote = std::uint64_t{64} << 20;
// Ours: --data runs the layers' value rules on the machine's cores, at most
// this many threads (a URL's are run on one: one connection).
inline constexpr unsigned kDataThreadsMax = 8;

// ---- inspect --values (src/parse/tensor_values.hpp) ----

// Ours: the elements `inspect --values NAME` decodes when --count is not
// given; enough to recognise a scale, a code pattern or a marker's bytes.
inline constexpr std::uint64_t kInspectValuesDefault = 16;
// Ours: the most --count may ask for. At most 8 bytes an element (F64, I64,
// C64), so one --values reads at most 32 KiB, only the bytes those elements
// occupy, whatever the tensor's size.
inline constexpr std::uint64_t kInspectValuesMax = 4096;
// Ours: the tensor names a usage error lists for a --values NAME that does
// not exist (then how many more there are), so a model of 100,000 tensors
// does not print them all.
inline constexpr std::size_t kInspectNamesListed = 20;

// ---- .npy arrays (linear --input, --out; src/io/npy.hpp) ----

// Reference (numpy >= 1.24, np.load's max_header_size): a longer header is
// refused by numpy unless the caller opts in; real headers are under 200
// bytes. An array's data is bounded by kMaxTensorBytes, as a tensor's.
inline constexpr std::uint64_t kMaxNpyHeaderBytes = 10'000;
// Reference (numpy 2, NPY_MAXDIMS): more dimensions than numpy can hold.
inline constexpr std::size_t kMaxNpyDims = 64;

// ---- Reading from standard input and from URLs (src/io/byte_file.hpp, src/io/http_range.hpp) ----

// Ours: the path `-` holds the bytes of standard input a command will read,
// at most this much (a pipe cannot be read twice): every byte for `inspect`,
// `dequant` or `check --data`, whose data rules need the data bytes; for
// `check` without --data only the header and the marker tensors, the rest
// counted as it streams past (src/io/held_stream.hpp). More to hold is
// refused with an I/O error, never buffered further.
inline constexpr std::uint64_t kMaxStdinBytes = std::uint64_t{1} << 30;
// Ours: standard input is held in pieces of this many bytes, each filled by
// read() where it lies: no buffer is ever grown (and copied) to the stream's
// length, so holding a stream costs the stream and less than a piece.
inline constexpr std::uint64_t kStdinPieceBytes = std::uint64_t{1} << 20;
// Reference (huggingface_hub.get_safetensors_metadata asks for the first
// 100,000 bytes): the first ranged request for a URL, so that one round trip
// holds the 8-byte prefix and most headers; a longer header costs one more.
inline constexpr std::uint64_t kHttpFirstReadBytes = 100'000;
// Ours: a URL's marker tensors (tiny, and written next to each other by the
// usual writers, which sort by dtype then name) are read as covering ranges,
// one request each: two markers share a range when at most this many bytes
// lie between them (a round trip costs what a fast link moves in it, some
// 100 KB to 1 MB), and a range holds at most kHttpMarkerRunBytes (the
// largest marker read, kMaxMarkerReadBytes, still fits one alone).
inline constexpr std::uint64_t kHttpMarkerGapBytes = std::uint64_t{256} << 10;
inline constexpr std::uint64_t kHttpMarkerRunBytes = kMaxMarkerReadBytes;
// Ours: the same for a local file, where a read costs a system call, not a
// round trip: a header of 333,000 markers spent a third of its check in one
// pread per marker. On 333,000 mxfp8 layers with 16.9 KB between markers,
// reading every byte between them in 4 MiB runs took 2.2 s of CPU against
// 2.9 s for a read per marker (a 16 KiB bound); a run is read into one
// buffer of at most 4 MiB (a larger marker is read alone).
inline constexpr std::uint64_t kLocalMarkerGapBytes = std::uint64_t{32} << 10;
inline constexpr std::uint64_t kLocalMarkerRunBytes = std::uint64_t{4} << 20;
// Ours: the files of a URL's checkpoint (an index's shards) read at once,
// each over a connection of its own: a round trip, not the transfer, is what
// a header costs, so 100 shards on a server 50 ms away take 5 round trips
// (1 for the index, 100/32 rounded up for the shards), not 101. Within
// kMaxCheckJobs, the bound on headers in flight. --jobs does not lower it:
// it counts cores, and these threads mostly wait.
inline constexpr unsigned kHttpParallelRequests = 32;
static_assert(kHttpParallelRequests <= kMaxCheckJobs);
// Ours: the first requests' bytes kept per URL, the latest this many URLs'
// (one per thread that may be reading one), so that opening a URL again
// right after its header (for a hint, or --data) costs no request.
inline constexpr std::size_t kHttpHeadsKept = kHttpParallelRequests;
// Ours: redirects followed by one request (the Hub's resolve URLs redirect
// once, to their CDN); one more is an I/O error.
inline constexpr int kHttpMaxRedirects = 5;
// Ours: connecting to a server, in milliseconds.
inline constexpr long kHttpConnectTimeoutMs = 10'000;
// Ours: one whole request, in milliseconds: a header of kMaxHeaderSize or a
// tensor of kMaxTensorBytes at about 1 MB/s. The environment variable
// SAFESPEC_HTTP_TIMEOUT_MS lowers both timeouts (the tests' slow server).
inline constexpr long kHttpRequestTimeoutMs = 300'000;
// Ours: attempts of one request; only a transient failure (no connection, a
// timeout, a cut transfer, HTTP 429/500/502/503/504) is tried again.
inline constexpr int kHttpMaxAttempts = 3;
// Ours: the wait before attempt k+1 is k times this, in milliseconds.
inline constexpr long kHttpRetryDelayMs = 200;

}  // namespace safespec
