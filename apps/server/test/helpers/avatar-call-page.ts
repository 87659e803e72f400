import type { Page } from 'playwright-core';

// Runs in the browser (no DOM library in the server's compilation).
declare const window: any, document: any, navigator: any, RTCPeerConnection: any, FormData: any, performance: any;

/** What placing an avatar call from a page gave. */
export interface AvatarCallSetup {
  status: number;
  /** The answer's Location (`/v1/realtime/calls/rtc_…`); '' when refused. */
  location: string;
  answer: string;
  /** The first decoded frame's size. */
  width: number;
  height: number;
  /** The reply audio and the video arrived in one media stream (one msid). */
  sameStream: boolean;
}

/**
 * Places a live avatar call from `page` as an application does: the fake microphone's track, a
 * receive-only video transceiver, the offer POSTed with `session` as multipart (the photo inline),
 * the remote stream on `<video id=videoId>` (made if the page has none). Waits for the data
 * channel and (unless `waitForFrame` is false) the first decoded frame. The page keeps
 * `window.__pc`, `window.__dc`, every server event in `window.__events` with its arrival time
 * (`__at`, page clock), and `window.__dcClosedAt` once the data channel reports closed.
 */
export async function placeAvatarCall(
  page: Page,
  options: { apiKey: string; session: Record<string, unknown>; videoId: string; waitForFrame?: boolean },
): Promise<AvatarCallSetup> {
  return page.evaluate(
    async ({ apiKey, session, videoId, waitForFrame }) => {
      const w = window;
      w.__events = [];
      w.__dcClosedAt = 0;
      let video = document.getElementById(videoId);
      if (!video) {
        video = Object.assign(document.createElement('video'), { id: videoId, autoplay: true, muted: true, playsInline: true });
        document.body.append(video);
      }
      const mic = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true } });
      const pc = new RTCPeerConnection();
      const dc = pc.createDataChannel('oai-events');
      dc.onmessage = (m: any) => w.__events.push({ ...JSON.parse(m.data), __at: performance.now() });
      dc.onclose = () => (w.__dcClosedAt = performance.now());
      pc.addTransceiver('video', { direction: 'recvonly' });
      pc.addTrack(mic.getAudioTracks()[0], mic);
      pc.ontrack = (e: any) => (video.srcObject = e.streams[0]);
      await pc.setLocalDescription(await pc.createOffer());
      const form = new FormData();
      form.set('sdp', pc.localDescription.sdp);
      form.set('session', JSON.stringify(session));
      const res = await fetch('/v1/realtime/calls', { method: 'POST', body: form, headers: { Authorization: `Bearer ${apiKey}` } });
      const answer = await res.text();
      if (res.status !== 201) return { status: res.status, answer, location: '', width: 0, height: 0, sameStream: false };
      await pc.setRemoteDescription({ type: 'answer', sdp: answer });
      w.__pc = pc;
      w.__dc = dc;
      await new Promise<void>((resolve) => (dc.readyState === 'open' ? resolve() : (dc.onopen = () => resolve())));
      // the first decoded frame
      const deadline = performance.now() + (waitForFrame ? 15_000 : 0);
      while (video.videoWidth === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return {
        status: res.status,
        location: res.headers.get('location') as string,
        answer,
        width: video.videoWidth as number,
        height: video.videoHeight as number,
        sameStream: video.srcObject?.getTracks().length === 2,
      };
    },
    { waitForFrame: true, ...options },
  );
}

/** Asks for a reply to `text` on the page's call (a user item and response.create on `window.__dc`). */
export async function askForReply(page: Page, text: string): Promise<void> {
  await page.evaluate((text) => {
    window.__dc.send(
      JSON.stringify({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
      }),
    );
    window.__dc.send(JSON.stringify({ type: 'response.create' }));
  }, text);
}
