/**
 * Buffers of one size, kept for reuse. A transfer holds a few large buffers at a time (parts,
 * ranges); allocating each anew would leave the old ones to the garbage collector, which lets
 * tens of megabytes of them pile up before it runs (V8 collects on external memory growth).
 */
export class BufferPool {
  private readonly free: Buffer[] = [];

  constructor(private readonly size: number) {}

  /** A buffer of `length` bytes (at most the pool's size), to `give` back when done with. */
  take(length: number): Buffer {
    if (length > this.size) throw new Error(`a buffer of ${length} bytes from a pool of ${this.size}`);
    return (this.free.pop() ?? Buffer.allocUnsafeSlow(this.size)).subarray(0, length);
  }

  give(buffer: Uint8Array): void {
    this.free.push(Buffer.from(buffer.buffer, 0, this.size));
  }
}
