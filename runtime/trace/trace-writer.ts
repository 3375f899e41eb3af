import fs from 'node:fs';

/**
 * Writes the trace as JSON lines, one per event, buffered and flushed synchronously (the trace
 * must survive a crash of the program under test, and it must not add real async I/O).
 */
export class TraceWriter {
  private readonly fd: number;
  private buffer: string[] = [];
  private bufferedChars = 0;
  readonly file: string;

  constructor(file: string) {
    this.file = file;
    this.fd = fs.openSync(file, 'w');
  }

  write(record: object): void {
    const line = JSON.stringify(record);
    this.buffer.push(line);
    this.bufferedChars += line.length + 1;
    if (this.bufferedChars > 1 << 16) this.flush();
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    fs.writeSync(this.fd, this.buffer.join('\n') + '\n');
    this.buffer = [];
    this.bufferedChars = 0;
  }

  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
}
