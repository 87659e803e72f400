/** The live avatar's picture in the realtime panel, with the presented frames per second (requestVideoFrameCallback). */
export class AvatarVideo {
  /** Stops counting the presented frames of the current call. */
  private stopFrameCounter: (() => void) | null = null;

  constructor(
    readonly video: HTMLVideoElement,
    private readonly stats: HTMLElement,
  ) {}

  show(): void {
    const { video, stats } = this;
    video.hidden = false;
    stats.hidden = false;
    stats.textContent = 'Waiting for the first frame…';
    let stopped = false;
    let frames = 0;
    let windowStart = performance.now();
    const onFrame = () => {
      if (stopped) return;
      frames++;
      const now = performance.now();
      if (now - windowStart >= 1000) {
        stats.textContent = `Avatar video ${video.videoWidth}×${video.videoHeight} · ${Math.round((frames * 1000) / (now - windowStart))} frames/s`;
        frames = 0;
        windowStart = now;
      }
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);
    this.stopFrameCounter = () => (stopped = true);
  }

  hide(): void {
    this.stopFrameCounter?.();
    this.stopFrameCounter = null;
    this.video.srcObject = null;
    this.video.hidden = true;
    this.stats.hidden = true;
  }
}
