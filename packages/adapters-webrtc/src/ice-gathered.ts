import type { RTCPeerConnection } from 'werift';

/** Resolves once the peer connection has gathered its candidates (they are then in its local description). */
export function iceGathered(pc: RTCPeerConnection): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const { unSubscribe } = pc.iceGatheringStateChange.subscribe((state) => {
      if (state !== 'complete') return;
      unSubscribe();
      resolve();
    });
  });
}
