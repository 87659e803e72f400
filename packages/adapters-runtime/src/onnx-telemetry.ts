import { isMainThread } from 'node:worker_threads';

/**
 * onnxruntime-node (1.29 on, Linux builds too) reports usage to Microsoft unless ORT_DISABLE_TELEMETRY
 * is set in the process environment before its first session: it stores a device id and an event queue
 * under ~/.cache/Microsoft/DeveloperTools/.onnxruntime and looks up its collector's host to upload them.
 * A self-hosted service contacts no one on its own, so every path that creates a session calls this
 * first (docs/deployment.md, "Outbound connections: onnxruntime's telemetry"). Only the main thread's process.env reaches the
 * C environment that onnxruntime reads (a worker thread's is a copy), so the worker pool calls it too,
 * before it starts a thread that may create a session. An operator's own value is left as it is.
 */
export function disableOnnxTelemetry(): void {
  if (isMainThread && process.env.ORT_DISABLE_TELEMETRY === undefined) process.env.ORT_DISABLE_TELEMETRY = '1';
}
