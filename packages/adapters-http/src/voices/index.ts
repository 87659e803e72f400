export { voiceRoutes, type VoiceRoutesDeps } from './voice-routes.js';
export * from './voice-schema.js';
export { formatCreatedAt, presentVoice, presentVoiceList, presentVoiceDeleted } from './voice-presenter.js';
