// @test-tier serial: busy loops measured against the machine's load
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { ServerLoadMonitor } from '../../src/runtime/server-load-monitor.js';
import { childrenCpuMs } from '../../src/runtime/process-cpu.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A child process that spins on the CPU for `ms` (like a decoder working). */
function burn(ms: number): Promise<void> {
  const child = spawn(process.execPath, ['-e', `const end = Date.now() + ${ms}; while (Date.now() < end) {}`]);
  return new Promise((resolve) => child.on('exit', () => resolve()));
}

/**
 * The measurements behind admission by capacity, on real processes: the CPU of this process and
 * of its children (the decoders are children) per second of input audio, and the event loop's
 * delay. Bounds are loose: on a busy machine a spinning child gets only part of a core.
 */
describe('ServerLoadMonitor: what a speaking session costs and how late the event loop runs (real CPU, real timers)', function () {
  this.timeout(60_000);

  it("counts its children's CPU (live and exited) with its own, per second of input audio", async () => {
    const monitor = new ServerLoadMonitor({ budgetCores: 1.6, sessionCores: 0.01, sampleMs: 3_600_000 });
    try {
      const childrenBefore = childrenCpuMs(process.pid);
      monitor.sample();
      // Two "sessions" stream 2 s of audio each while a child burns CPU.
      const burning = burn(1500);
      for (let i = 0; i < 20; i++) {
        monitor.inputAudio(200);
        await sleep(100);
      }
      await burning;
      const childMs = childrenCpuMs(process.pid) - childrenBefore;
      monitor.sample();
      const measured = monitor.measuredSessionCores!;
      console.log(`      child CPU ${childMs} ms over 4 s of input audio: measured ${measured.toFixed(3)} cores per speaking session`);
      expect(childMs, 'the exited child is counted').to.be.greaterThan(100);
      // At least the child's CPU per audio second, plus this process's (small) share.
      expect(measured).to.be.at.least(childMs / 4000 - 0.01);
      expect(measured).to.be.lessThan(childMs / 4000 + 0.5);
      expect(monitor.read().sessionCores, 'the learned cost, not the estimate').to.equal(measured);
    } finally {
      monitor.stop();
    }
  });

  it("leaves a live avatar's video out of a speaking session's measured cost, and reports it apart", async () => {
    // Two monitors over the same window and the same CPU: one with a 640x480 avatar live at 0.6
    // cores per 640x640 equivalent (0.45 cores), one without.
    const voiceOnly = new ServerLoadMonitor({ budgetCores: 2, sessionCores: 0.001, sampleMs: 3_600_000 });
    const withAvatar = new ServerLoadMonitor({ budgetCores: 2, sessionCores: 0.001, avatarCores: 0.6, sampleMs: 3_600_000 });
    withAvatar.watchLiveAvatars(() => 0.75);
    try {
      const burning = burn(2500);
      const started = Date.now();
      for (let i = 0; i < 20; i++) {
        for (const m of [voiceOnly, withAvatar]) m.inputAudio(400); // 8 s of audio each
        await sleep(100);
      }
      await burning;
      const windowMs = Date.now() - started;
      for (const m of [voiceOnly, withAvatar]) m.sample();
      const without = voiceOnly.measuredSessionCores!;
      const withIt = withAvatar.measuredSessionCores!;
      console.log(
        `      ${windowMs} ms window, 8 s of audio: ${without.toFixed(3)} cores per session, ${withIt.toFixed(3)} with the avatar's 0.45 cores left out`,
      );
      // 0.45 cores over the window, per second of audio, comes off (or all of it, when less was used).
      const expected = Math.max(0, without - (0.45 * windowMs) / 8000);
      expect(withIt).to.be.closeTo(expected, 0.02);
      expect(withIt).to.be.lessThan(without);
      expect(withAvatar.read().avatarCores).to.be.closeTo(0.45, 1e-9);
      expect(voiceOnly.read().avatarCores).to.equal(0);
    } finally {
      voiceOnly.stop();
      withAvatar.stop();
    }
  });

  it('uses the configured estimate until 2 s of audio were measured, then the learned cost even below it (no fixed floor)', async () => {
    const monitor = new ServerLoadMonitor({ budgetCores: 2, sessionCores: 0.12, sampleMs: 3_600_000 });
    try {
      monitor.inputAudio(500);
      monitor.sample();
      expect(monitor.measuredSessionCores, 'too little audio').to.equal(null);
      expect(monitor.read().sessionCores, 'the estimate before a measurement').to.equal(0.12);
      monitor.inputAudio(60_000); // a minute of audio at almost no CPU
      monitor.sample();
      expect(monitor.measuredSessionCores).to.be.lessThan(0.12);
      expect(monitor.read().sessionCores).to.equal(monitor.measuredSessionCores);
    } finally {
      monitor.stop();
    }
  });

  it('reads the event loop delay: a loop blocked for 300 ms at a time shows it, an idle one does not', async () => {
    const monitor = new ServerLoadMonitor({ budgetCores: 2, sessionCores: 0.1, sampleMs: 3_600_000 });
    monitor.start(); // the event loop's delay is measured from the start hook on
    try {
      await sleep(300);
      monitor.sample();
      const idle = monitor.read().eventLoopLagMs;
      for (let i = 0; i < 8; i++) {
        const end = Date.now() + 300;
        while (Date.now() < end) {
          // blocked, as a synchronous engine call would
        }
        await sleep(5);
      }
      monitor.sample();
      const blocked = monitor.read().eventLoopLagMs;
      console.log(`      event-loop delay p90: idle ${idle.toFixed(1)} ms, blocked ${blocked.toFixed(1)} ms`);
      expect(blocked).to.be.greaterThan(200);
      expect(blocked).to.be.greaterThan(idle);
    } finally {
      monitor.stop();
    }
  });

  it("reads the recognizer's backlog and queue when a session asks to be admitted", () => {
    let load = { backlogMs: 0, waiting: 0 };
    const monitor = new ServerLoadMonitor({ budgetCores: 2, sessionCores: 0.1, recognizer: () => load, sampleMs: 3_600_000 });
    try {
      expect(monitor.read()).to.deep.include({ recognizerBacklogMs: 0, recognizerQueue: 0, budgetCores: 2 });
      load = { backlogMs: 1500, waiting: 2 };
      expect(monitor.read()).to.deep.include({ recognizerBacklogMs: 1500, recognizerQueue: 2 });
    } finally {
      monitor.stop();
    }
  });
});
