export { transcriptionRoutes, type TranscriptionRoutesDeps } from './transcription-routes.js';
export { presentTranscript, TRANSCRIPTION_FORMATS, type TranscriptionFormat } from './transcription-presenter.js';
