import { ServiceError } from '../shared/errors.js';

/** The reference image holds no face the avatar renderer can animate. */
export class NoFaceDetectedError extends ServiceError {
  readonly identifier = 'no_face_detected';
  constructor(message = "No face was found in 'ref_image'. Use a photo with one clearly visible face.") {
    super(message, 'ref_image');
  }
}
