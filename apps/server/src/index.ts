export * from './config.js';
export * from './container.js';
export * from './server.js';
export * from './tokens.js';
