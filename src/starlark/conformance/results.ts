/** Outcome shapes of a conformance run: per chunk, per file, and the whole corpus. */

export type Status = 'pass' | 'fail' | 'skip';

export interface ChunkResult {
  startLine: number;
  status: Status;
  problems: string[];
}

export interface FileReport {
  file: string;
  mode: string;
  passed: number;
  failed: number;
  skipped: number;
  chunks: ChunkResult[];
}

export interface Report {
  files: FileReport[];
  passed: number;
  failed: number;
  skipped: number;
}
