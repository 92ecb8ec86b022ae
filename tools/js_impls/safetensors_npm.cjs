// safespec conformance adapter for the npm package safetensors@0.0.1 (SafeTensor):
// exit 0 when it parses the file and yields every tensor, 1 when it throws.
const fs = require('fs');
const { SafeTensor } = require('safetensors');
try {
  const buf = new Uint8Array(fs.readFileSync(process.argv[2]));
  const st = new SafeTensor(buf);
  for (const name of st.metadata.keys()) st.getTensor(name);
  process.exit(0);
} catch (e) {
  process.exit(1);
}
