import fs from 'node:fs';
import { onRealDisk } from '../disk/real.js';

/**
 * Writes the trace as JSON lines, one per event, buffered and flushed synchronously (the trace
 * must survive a crash of the program under test, and it must not add real async I/O), always
 * to the real disk, also when a host's simulated disk is in use.
 */
export class TraceWriter {
  private readonly fd: number;
  private buffer: string[] = [];
  private bufferedChars = 0;
  readonly file: string;

  constructor(file: string) {
    this.file = file;
    this.fd = onRealDisk(() => fs.openSync(file, 'w'));
  }

  write(record: object): void {
    const line = JSON.stringify(record);
    this.buffer.push(line);
    this.bufferedChars += line.length + 1;
    if (this.bufferedChars > 1 << 16) this.flush();
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    const text = this.buffer.join('\n') + '\n';
    onRealDisk(() => fs.writeSync(this.fd, text));
    this.buffer = [];
    this.bufferedChars = 0;
  }

  close(): void {
    this.flush();
    onRealDisk(() => fs.closeSync(this.fd));
  }
}
