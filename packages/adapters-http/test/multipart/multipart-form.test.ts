import { expect } from 'chai';
import { readMultipartForm } from '../../src/multipart/multipart-form.js';
import { errorOf, startApp, testRoute, type RunningApp } from '../support/http-app.js';

/** Echoes the parsed form: text fields, lists, and each file's name, type and size. */
const upload = testRoute('post', '/upload', async (ctx) => {
  const form = await readMultipartForm(ctx, {
    allowed: ['file', 'note', 'tag'],
    repeatable: ['tag'],
    maxFileBytes: 1000,
    maxFieldBytes: 50,
    maxBodyBytes: 4000,
  });
  ctx.body = {
    fields: form.fields,
    lists: form.lists,
    files: Object.fromEntries(
      Object.entries(form.files).map(([k, f]) => [
        k,
        { filename: f.filename, mimeType: f.mimeType, size: f.bytes.byteLength, first: f.bytes[0] },
      ]),
    ),
  };
});

const form = (parts: Array<[string, string | Blob, string?]>) => {
  const data = new FormData();
  for (const [name, value, filename] of parts) {
    if (typeof value === 'string') data.append(name, value);
    else data.append(name, value, filename);
  }
  return data;
};

describe('readMultipartForm: uploads read with their limits enforced while they stream in', () => {
  let t: RunningApp;
  before(async () => {
    t = await startApp({ api: [upload] });
  });
  after(() => t.close());
  const post = (body: FormData | string, headers: Record<string, string> = {}) => t.call('/upload', { method: 'POST', body, headers });

  it('reads text fields, repeatable fields in order, and a file with its claimed name and type', async () => {
    const res = await post(
      form([
        ['note', 'héllo'],
        ['tag', 'a'],
        ['tag', 'b'],
        ['file', new Blob([Uint8Array.of(7, 8, 9)], { type: 'audio/wav' }), 'clip.wav'],
      ]),
    );
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({
      fields: { note: 'héllo', tag: 'a' },
      lists: { tag: ['a', 'b'] },
      files: { file: { filename: 'clip.wav', mimeType: 'audio/wav', size: 3, first: 7 } },
    });
  });

  it('an unknown name is unknown_parameter; a name sent twice is invalid_parameter naming it', async () => {
    const unknown = await post(form([['colour', 'red']]));
    expect(unknown.status).to.equal(400);
    expect(await errorOf(unknown)).to.include({ type: 'unknown_parameter', param: 'colour' });
    const twice = await post(
      form([
        ['note', 'a'],
        ['note', 'b'],
      ]),
    );
    expect(twice.status).to.equal(400);
    expect(await errorOf(twice)).to.include({ type: 'invalid_parameter', param: 'note', message: "'note' was sent more than once." });
  });

  it('a file or a field over its limit is media_too_large (413); a body over the whole limit is payload_too_large', async () => {
    const file = await post(form([['file', new Blob([new Uint8Array(1001)]), 'big.bin']]));
    expect(file.status).to.equal(413);
    expect(await errorOf(file)).to.include({ type: 'media_too_large', param: 'file' });
    const field = await post(form([['note', 'x'.repeat(51)]]));
    expect(field.status).to.equal(413);
    expect((await errorOf(field)).type).to.equal('media_too_large');
    // Every part within its limit, but 5000 bytes of preamble before the first boundary (busboy skips
    // those, so only the whole-body limit sees them).
    const boundary = 'xyz';
    const padded = `${'p'.repeat(5000)}\r\n--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi\r\n--${boundary}--\r\n`;
    const body = await post(padded, { 'Content-Type': `multipart/form-data; boundary=${boundary}` });
    expect(body.status).to.equal(413);
    expect(await errorOf(body)).to.include({ type: 'payload_too_large', message: 'The multipart/form-data body exceeds the 4 KiB limit.' });
  });

  it('a body cut off inside a part is a 400 that says so', async () => {
    const boundary = 'xyz';
    const truncated = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\nabc`;
    const res = await post(truncated, { 'Content-Type': `multipart/form-data; boundary=${boundary}` });
    expect(res.status).to.equal(400);
    expect((await errorOf(res)).message).to.match(/^Malformed multipart\/form-data body: /);
  });
});
