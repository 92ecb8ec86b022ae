// safespec conformance adapter for @huggingface/hub's parseSafetensorsMetadata:
// the file is served to it by an in-process fetch from its own directory, as
// if it were a model repository; exit 0 when the promise resolves, 1 when it
// rejects.
import { readFileSync, existsSync, statSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { parseSafetensorsMetadata } from '@huggingface/hub';

const file = process.argv[2];
const root = dirname(file);
async function localFetch(input, init = {}) {
  const url = new URL(input instanceof URL ? input.href : typeof input === 'string' ? input : input.url);
  const m = url.pathname.match(/\/resolve\/[^/]+\/(.*)$/);
  const path = m ? join(root, decodeURIComponent(m[1])) : null;
  if (!path || !existsSync(path) || !statSync(path).isFile()) return new Response('not found', { status: 404 });
  const bytes = readFileSync(path);
  const headers = new Headers(init.headers || {});
  const range = headers.get('Range') || headers.get('range');
  const common = { 'ETag': '"x"', 'X-Repo-Commit': 'c'.repeat(40), 'Accept-Ranges': 'bytes' };
  if (range) {
    const r = range.match(/bytes=(\d+)-(\d*)/);
    const start = Number(r[1]);
    const end = r[2] === '' ? bytes.length - 1 : Math.min(Number(r[2]), bytes.length - 1);
    const body = start >= bytes.length ? new Uint8Array(0) : bytes.subarray(start, end + 1);
    return new Response(init.method === 'HEAD' ? null : body, { status: 206, headers: { ...common,
      'Content-Range': `bytes ${start}-${end}/${bytes.length}`, 'Content-Length': String(body.length) } });
  }
  return new Response(init.method === 'HEAD' ? null : bytes, { status: 200, headers: { ...common, 'Content-Length': String(bytes.length) } });
}
try {
  await parseSafetensorsMetadata({ repo: 'conformance/suite', path: basename(file), hubUrl: 'http://suite.invalid', fetch: localFetch });
  process.exit(0);
} catch (e) {
  process.exit(1);
}
