// The ONNX writer lives in src/onnx (the avatar's face detector builds its model with it); the test
// models import it from here as before.
export * from '../onnx/onnx-writer.js';
