export { videoRoutes, type VideoRoutesDeps } from './video-routes.js';
export * from './video-schema.js';
