import { Counter, Histogram, Registry, collectDefaultMetrics, Gauge } from 'prom-client';
import type { Middleware } from 'koa';
import type { SpeechObserver } from '@svc/core';
import { matchedRoute, type AppState } from '../app-state.js';

/** What the realtime capacity gauges show (apps/server's ServerLoadMonitor and the admission). */
export interface RealtimeCapacityFigures {
  capacity: number;
  sessionCores: number;
  recognizerBacklogMs: number;
  /** Totals since start: audio the sessions sent, and audio the recognizer decoded (its work). */
  inputAudioSeconds: number;
  decodedAudioSeconds: number;
  /** Voice activity frames scored and the model runs that scored them (frames of sessions speaking at once share runs). */
  vadFrames: number;
  vadRuns: number;
}

/**
 * Prometheus metrics of the service: HTTP traffic by route template and status, synthesis work,
 * plus process defaults. One registry per app instance so tests can run several servers.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route' | 'status'>;
  private readonly synthesisAudio: Counter<'engine'>;
  private readonly synthesisCompute: Counter<'engine'>;
  private countRealtimeSessions: () => number = () => 0;
  private realtimeLoad: (() => RealtimeCapacityFigures) | null = null;
  private readonly realtimeRefusals: Counter<'reason'>;
  private readonly realtimeSpeculations: Counter<'outcome'>;
  private readonly turnModelVerdicts: Counter<'verdict'>;
  private countWyomingConnections: () => number = () => 0;
  private readonly wyomingRequests: Histogram<'kind' | 'outcome'>;
  private readonly neuralModelSources: (() => { engine: string; model: string; bytes: number }[])[] = [];

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Time from request to the end of the response body',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    this.synthesisAudio = new Counter({
      name: 'svc_speech_synthesized_audio_seconds_total',
      help: 'Seconds of speech audio synthesized, by engine',
      labelNames: ['engine'],
      registers: [this.registry],
    });
    this.synthesisCompute = new Counter({
      name: 'svc_speech_synthesis_compute_seconds_total',
      help: 'Wall-clock seconds spent synthesizing, by engine (divide by audio seconds for the real-time factor)',
      labelNames: ['engine'],
      registers: [this.registry],
    });
    const metrics = this;
    new Gauge({
      name: 'svc_realtime_sessions',
      help: 'Open realtime sessions: WebSocket, WebRTC calls and SIP phone calls',
      registers: [this.registry],
      collect() {
        this.set(metrics.countRealtimeSessions());
      },
    });
    this.realtimeRefusals = new Counter({
      name: 'svc_realtime_sessions_refused_total',
      help: 'Realtime connections refused at admission, by reason (over_capacity: this process could not serve one more speaking session)',
      labelNames: ['reason'],
      registers: [this.registry],
    });
    this.realtimeSpeculations = new Counter({
      name: 'svc_realtime_speculations_total',
      help: 'Realtime replies begun at a pause before the turn was known to end, by outcome (used: sent when the turn ended; discarded: the user went on or the words changed)',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    this.turnModelVerdicts = new Counter({
      name: 'svc_realtime_turn_model_verdicts_total',
      help: "semantic_vad's end-of-turn model (SVC_TURN_MODEL), asked at a pause its rule would wait out, by verdict (ended: the turn ended there; waited: the rule's wait stood; late: answered after the pause was over; failed: the model could not run)",
      labelNames: ['verdict'],
      registers: [this.registry],
    });
    const realtimeFigure = (name: string, help: string, pick: (f: RealtimeCapacityFigures) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          const figures = metrics.realtimeLoad?.();
          if (figures) this.set(pick(figures));
        },
      });
    realtimeFigure(
      'svc_realtime_capacity_sessions',
      'Speaking realtime sessions this process can serve at its current load (admission by capacity)',
      (f) => f.capacity,
    );
    realtimeFigure(
      'svc_realtime_session_cpu_cores',
      'CPU one speaking realtime session costs (cores): measured, never below SVC_REALTIME_SESSION_CPU',
      (f) => f.sessionCores,
    );
    realtimeFigure(
      'svc_realtime_recognizer_backlog_seconds',
      'Audio given to the speech decoders and not decoded yet (the worst decoder)',
      (f) => f.recognizerBacklogMs / 1000,
    );
    const realtimeTotal = (name: string, help: string, pick: (f: RealtimeCapacityFigures) => number) => {
      let counted = 0;
      return new Counter({
        name,
        help,
        registers: [this.registry],
        collect() {
          const figures = metrics.realtimeLoad?.();
          if (!figures) return;
          const total = pick(figures);
          if (total > counted) this.inc(total - counted);
          counted = Math.max(counted, total);
        },
      });
    };
    realtimeTotal(
      'svc_realtime_input_audio_seconds_total',
      'Seconds of input audio realtime sessions sent (decoded, any format)',
      (f) => f.inputAudioSeconds,
    );
    realtimeTotal('svc_vad_frames_total', 'Voice activity frames (32 ms) scored', (f) => f.vadFrames);
    realtimeTotal('svc_vad_runs_total', 'Model runs that scored them (frames of sessions speaking at once share a run)', (f) => f.vadRuns);
    realtimeTotal(
      'svc_asr_decoded_audio_seconds_total',
      'Seconds of audio the speech decoders decoded (their CPU follows it; compare with the input audio)',
      (f) => f.decodedAudioSeconds,
    );
    new Gauge({
      name: 'svc_wyoming_connections',
      help: 'Open Wyoming (Home Assistant) connections',
      registers: [this.registry],
      collect() {
        this.set(metrics.countWyomingConnections());
      },
    });
    this.wyomingRequests = new Histogram({
      name: 'svc_wyoming_request_duration_seconds',
      help: 'Wyoming requests (describe, synthesize, synthesize-stream, transcribe) by outcome (ok, error, aborted): time from the request to its last event',
      labelNames: ['kind', 'outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
      registers: [this.registry],
    });
    new Gauge({
      name: 'svc_neural_model_bytes',
      help: 'Size of each loaded neural model, voices and recognizers (its weight files: the bulk of the session memory; onnxruntime reports no per-session figure)',
      labelNames: ['engine', 'model'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const m of metrics.neuralModelSources.flatMap((list) => list())) this.set({ engine: m.engine, model: m.model }, m.bytes);
      },
    });
  }

  /** The neural model gauge reads these when scraped (one source per capability: voices, recognizer). */
  trackNeuralModels(list: () => { engine: string; model: string; bytes: number }[]): void {
    this.neuralModelSources.push(list);
  }

  /** The realtime capacity gauges read this when scraped. */
  trackRealtimeCapacity(figures: () => RealtimeCapacityFigures): void {
    this.realtimeLoad = figures;
  }

  /** A realtime connection was refused at admission. */
  realtimeRefused(reason: string): void {
    this.realtimeRefusals.inc({ reason });
  }

  /** A reply begun on a guess (speculation) was used or discarded. */
  realtimeSpeculation(outcome: 'used' | 'discarded'): void {
    this.realtimeSpeculations.inc({ outcome });
  }

  /** What became of one question to semantic_vad's end-of-turn model. */
  turnModelVerdict(verdict: 'ended' | 'waited' | 'late' | 'failed'): void {
    this.turnModelVerdicts.inc({ verdict });
  }

  /** The gauge of open realtime sessions reads this when scraped. */
  trackRealtimeSessions(count: () => number): void {
    this.countRealtimeSessions = count;
  }

  /** The gauge of open Wyoming connections reads this when scraped. */
  trackWyomingConnections(count: () => number): void {
    this.countWyomingConnections = count;
  }

  /** One finished Wyoming request (the adapter's observer calls this). */
  recordWyomingRequest(kind: string, outcome: string, seconds: number): void {
    this.wyomingRequests.observe({ kind, outcome }, seconds);
  }

  readonly speechObserver: SpeechObserver = {
    synthesized: ({ engine, audioSeconds, computeSeconds }) => {
      this.synthesisAudio.inc({ engine }, audioSeconds);
      this.synthesisCompute.inc({ engine }, computeSeconds);
    },
  };

  /** Counts every request once its response has finished (streams included). */
  middleware(): Middleware<AppState> {
    return async (ctx, next) => {
      const end = this.latency.startTimer();
      const record = () => {
        const labels = { method: ctx.method, route: matchedRoute(ctx as never), status: String(ctx.status) };
        this.requests.inc(labels);
        end(labels);
      };
      ctx.res.once('close', record);
      await next();
    };
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
