/** The realtime panel's code aside: the session it opened (WebSocket, WebRTC call, or a call with the live avatar). */
import { WS_URL } from './api.js';
import { auth, baseUrl, json } from './code-samples.js';
import { REALTIME_MODEL as MODEL } from './realtime-session-config.js';

/**
 * The first lines of every transport's JavaScript: the browser connects with a client secret that
 * the app's own server minted with the API key (step 1, in the curl tab; the call it makes is shown
 * for a Node server). A page has no process.env, and the API key never goes to a browser.
 */
const JS_SECRET = `// Server side (Node): mint a client secret with the API key, never shipped to a browser:
//   const { value } = await (await fetch('${baseUrl}/v1/realtime/client_secrets', {
//     method: 'POST',
//     headers: { Authorization: \`Bearer \${process.env.KEY}\`, 'Content-Type': 'application/json' },
//     body: JSON.stringify({ expires_after: { seconds: 600 } }),
//   })).json();
// Browser: the secret your server handed to the page (or the value of the curl tab's step 1)
const SECRET = '<client secret>'; // paste it here (svc-eph-…)`;

/** Step 1 of every transport: the secret a browser connects with, minted with the API key. */
const MINT_SECRET = `# 1. With the API key (server side), mint a short-lived client secret:
curl ${baseUrl}/v1/realtime/client_secrets \\
  ${auth} \\
  -H "Content-Type: application/json" \\
  -d '{"expires_after":{"seconds":600}}'`;

export function realtimeCode(
  session: Record<string, unknown>,
  transport: string,
  avatar: { size: string } | null,
): { curl: string; js: string } {
  if (transport === 'webrtc') return avatar ? avatarCallCode(session, avatar) : webrtcCode(session);
  return {
    curl: `${MINT_SECRET}
# -> {"object":"realtime.client_secret","value":"svc-eph-…","expires_at":…,"session":{…}}

# 2. The browser connects with the secret (JavaScript tab). From a terminal,
#    a server-side client may send the API key as a Bearer header instead.`,
    js: `${JS_SECRET}

// The secret travels in a subprotocol
const ws = new WebSocket('${WS_URL}/v1/realtime?model=${MODEL}',
  ['realtime', \`svc-client-secret.\${SECRET}\`]);
ws.onopen = () => ws.send(JSON.stringify({
  type: 'session.update',
  session: ${json(session, 2)},
}));
ws.onmessage = (m) => {
  const event = JSON.parse(m.data);
  if (event.type === 'response.output_audio.delta') {
    // base64 PCM16 24 kHz mono: schedule it with Web Audio
  }
};
// Microphone: PCM16 24 kHz mono chunks, base64, as they are captured
// ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: base64Chunk }));`,
  };
}

function webrtcCode(session: Record<string, unknown>): { curl: string; js: string } {
  return {
    curl: `${MINT_SECRET}

# 2. The browser posts its SDP offer with the secret (JavaScript tab):
#    POST ${baseUrl}/v1/realtime/calls  (Content-Type: application/sdp)
#    -> 201, the SDP answer, Location: /v1/realtime/calls/rtc_…
# A server may post multipart/form-data with sdp and session (the session's configuration) instead.`,
    js: `${JS_SECRET}

// A WebRTC call with the client secret (echo cancellation on the microphone)
const mic = await navigator.mediaDevices.getUserMedia({
  audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
});
const pc = new RTCPeerConnection();
const events = pc.createDataChannel('oai-events');
pc.addTrack(mic.getAudioTracks()[0], mic);
const speaker = new Audio();
speaker.autoplay = true;
pc.ontrack = (e) => {
  e.receiver.jitterBufferTarget = 0;                       // the reply's first sound as soon as it comes
  speaker.srcObject = e.streams[0];                        // the reply, as Opus RTP
};

const offer = await pc.createOffer();
await pc.setLocalDescription(offer);
const res = await fetch('${baseUrl}/v1/realtime/calls', {
  method: 'POST',
  body: offer.sdp,
  headers: { Authorization: \`Bearer \${SECRET}\`, 'Content-Type': 'application/sdp' },
});
await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });

events.onopen = () => events.send(JSON.stringify({
  type: 'session.update',
  session: ${json(session, 2)},
}));
events.onmessage = (m) => console.log(JSON.parse(m.data));   // session.created first

// Or the agents SDK, unchanged: new RealtimeSession(agent, {
//   transport: new OpenAIRealtimeWebRTC({ useInsecureApiKey: true }),  // svc-eph- keys are ephemeral
//   model: 'svc-realtime', tracingDisabled: true,
// }).connect({ apiKey: SECRET, url: '${baseUrl}/v1/realtime/calls' });`,
  };
}

/** A WebRTC call with the live avatar: a receive-only video transceiver, the session (with the photo) sent with the offer. */
function avatarCallCode(session: Record<string, unknown>, avatar: { size: string }): { curl: string; js: string } {
  const withFace = { ...session, avatar: { ref_image: 'data:image/jpeg;base64,…', size: avatar.size } };
  return {
    curl: `${MINT_SECRET}

# 2. The browser posts its offer (it receives video) and the session naming the face, as
#    multipart/form-data (JavaScript tab): POST ${baseUrl}/v1/realtime/calls
#    -> 201, the SDP answer with an H.264 video m-line, Location: /v1/realtime/calls/rtc_…
# A refused face ends the call with an error event: no_face_detected, avatar_unavailable, …`,
    js: `${JS_SECRET}

// Talk to a face. <video id="avatar" autoplay playsinline muted>
const mic = await navigator.mediaDevices.getUserMedia({
  audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
});
const pc = new RTCPeerConnection();
const events = pc.createDataChannel('oai-events');
pc.addTrack(mic.getAudioTracks()[0], mic);
pc.addTransceiver('video', { direction: 'recvonly' });    // the avatar's H.264 track (after the audio)
const speaker = new Audio();
speaker.autoplay = true;
pc.ontrack = (e) => {
  // video and reply audio share one stream: the browser keeps the lips in sync
  if (e.track.kind === 'video') document.getElementById('avatar').srcObject = e.streams[0];
  else speaker.srcObject = e.streams[0];
};

const offer = await pc.createOffer();
await pc.setLocalDescription(offer);
const form = new FormData();
form.set('sdp', offer.sdp);
// an inline photo goes here, not on the data channel (256 KB messages)
form.set('session', JSON.stringify(${json(withFace)}));
const res = await fetch('${baseUrl}/v1/realtime/calls', {
  method: 'POST',
  body: form,
  headers: { Authorization: \`Bearer \${SECRET}\` },
});
await pc.setRemoteDescription({ type: 'answer', sdp: await res.text() });

events.onmessage = (m) => {
  const event = JSON.parse(m.data);   // session.created (avatar: {size}) first
  if (event.type === 'error') console.error(event.error.code);   // no_face_detected, …
};
// Hang up: pc.close() (or POST /v1/realtime/calls/rtc_…/hangup)`,
  };
}
