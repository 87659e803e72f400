import { mseTypeOf } from './mp4-codecs.js';

/**
 * Appends the fMP4 body to a SourceBuffer as it arrives. The reader waits for each append, so a
 * slow player slows the download (backpressure); played-out media is removed when the buffer is
 * full. Returns false (after reading the body to its end) when MSE cannot play these codecs.
 */
export async function playStream(
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
  video: HTMLVideoElement,
  onFirstFrame: () => void,
): Promise<boolean> {
  const reader = body.getReader();
  let head: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  let type: string | null = null;
  while (type === null) {
    const { done, value } = await reader.read();
    if (done) break;
    const joined = new Uint8Array(head.length + value.length);
    joined.set(head);
    joined.set(value, head.length);
    head = joined;
    type = mseTypeOf(head);
  }
  const MS = window.MediaSource;
  if (!type || !MS || !MS.isTypeSupported(type)) {
    while (!(await reader.read()).done) {
      // drain: the server finishes and stores the video either way
    }
    return false;
  }
  const source = new MS();
  video.src = URL.createObjectURL(source);
  video.hidden = false;
  await new Promise((r) => source.addEventListener('sourceopen', r, { once: true }));
  const buffer = source.addSourceBuffer(type);
  const append = async (bytes: Uint8Array<ArrayBuffer>) => {
    for (;;) {
      try {
        buffer.appendBuffer(bytes);
        break;
      } catch (err) {
        if ((err as DOMException).name !== 'QuotaExceededError' || video.currentTime < 2) throw err;
        buffer.remove(0, video.currentTime - 1);
        await new Promise((r) => buffer.addEventListener('updateend', r, { once: true }));
      }
    }
    await new Promise((r) => buffer.addEventListener('updateend', r, { once: true }));
  };
  video.addEventListener('playing', onFirstFrame, { once: true });
  await append(head);
  void video.play().catch(() => undefined);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    await append(value);
  }
  if (source.readyState === 'open') source.endOfStream();
  return true;
}
