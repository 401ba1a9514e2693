import { SECRET_NAME_BODY } from '../contracts/secret-names.js';
import { BadRequestError } from '../errors/request-errors.js';

/** A marker the redactor writes; refusing them keeps redacted output from being saved as truth. */
export const MARKER_PATTERN = new RegExp(`\\[REDACTED:${SECRET_NAME_BODY}\\]`);

export function containsMarker(text: string): boolean {
  return text.includes('[REDACTED:') && MARKER_PATTERN.test(text);
}

/**
 * For write tools: content holding a redaction marker is almost always redacted output being
 * written back, which would silently replace a real value with the marker.
 */
export function assertNoMarkers(text: string, what = 'content'): void {
  if (containsMarker(text)) {
    throw new BadRequestError(
      `${what} contains a [REDACTED:…] marker: it was copied from redacted output; write the real text instead`,
    );
  }
}
