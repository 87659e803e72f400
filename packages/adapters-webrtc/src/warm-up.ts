import { RTCDtlsTransport, RTCPeerConnection } from 'werift';
import { iceGathered } from './ice-gathered.js';

let warming: Promise<number> | null = null;

/**
 * Runs what a fresh process otherwise does during its first call: werift's DTLS certificate (made
 * once per process, on the first offer) and a whole call's worth of cold code (ICE checks, the DTLS
 * handshake, the SRTP keys, the SCTP association and a data channel), by connecting two peer
 * connections to each other over loopback. Once per process (what it warms is the process's):
 * later calls get the same promise. On a loaded machine a fresh server's first call took long
 * enough to connect that its connect timeout had to be raised for it (docs/realtime.md,
 * `SVC_WEBRTC_WARM_UP`); warmed, it connects like any other. Resolves with the milliseconds it took; rejects after `timeoutMs`.
 */
export function warmUpWebRtc(timeoutMs = 30_000): Promise<number> {
  warming ??= connectLoopback(timeoutMs);
  return warming;
}

async function connectLoopback(timeoutMs: number): Promise<number> {
  const started = performance.now();
  await RTCDtlsTransport.SetupCertificate();
  const config = { iceServers: [], iceAdditionalHostAddresses: ['127.0.0.1'] };
  const offerer = new RTCPeerConnection(config);
  const answerer = new RTCPeerConnection(config);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const channel = offerer.createDataChannel('warm-up');
    offerer.addTransceiver('audio', { direction: 'sendrecv' });
    const opened = new Promise<void>((resolve) => {
      if (channel.readyState === 'open') return resolve();
      channel.stateChanged.subscribe((state) => state === 'open' && resolve());
    });
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the WebRTC warm-up did not connect within ${timeoutMs} ms`)), timeoutMs);
      timer.unref?.();
    });
    const connect = async (): Promise<void> => {
      await offerer.setLocalDescription(await offerer.createOffer());
      await iceGathered(offerer);
      await answerer.setRemoteDescription(offerer.localDescription!);
      await answerer.setLocalDescription(await answerer.createAnswer());
      await iceGathered(answerer);
      await offerer.setRemoteDescription(answerer.localDescription!);
      await opened;
    };
    await Promise.race([connect(), timedOut]);
    return performance.now() - started;
  } finally {
    clearTimeout(timer);
    await Promise.allSettled([offerer.close(), answerer.close()]);
  }
}
