export { readMultipartForm, isMultipart, type MultipartForm, type MultipartRules, type UploadedFile } from './multipart-form.js';
