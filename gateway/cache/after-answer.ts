// Work to do once an upstream has given its whole answer but before the client has all of it:
// a `$batch` answer streams while the upstream still runs its changesets, so the sets they wrote
// are outdated only when its last bytes arrive, and the client gets those last bytes only after
// that. Otherwise a read the client sends as soon as it has seen its batch end could still be
// answered from an entry stored while the changesets ran.
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';

/** Passes every chunk on but the last, which follows once `work` has settled. */
class HoldLast extends Transform {
  private last: Buffer | undefined;

  constructor(private readonly work: () => Promise<void>) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const previous = this.last;
    this.last = chunk;
    callback(null, previous);
  }

  override _flush(callback: TransformCallback): void {
    // `work` reports its own failures: the answer goes out whatever it says.
    this.work().then(() => callback(null, this.last), () => callback(null, this.last));
  }
}

/**
 * `body` as the client will get it: its end held back until `work` is done. `onBroken` runs
 * instead when the body never ends (the upstream broke off, the client went away), since the
 * upstream may have written meanwhile.
 */
export function afterAnswer(body: Readable, work: () => Promise<void>, onBroken: () => void): Readable {
  const held = new HoldLast(work);
  let isEnded = false;
  body.once('end', () => {
    isEnded = true;
  });
  body.once('error', (error) => held.destroy(error));
  held.once('close', () => {
    if (isEnded) return;
    if (!body.destroyed) body.destroy();
    onBroken();
  });
  return body.pipe(held);
}
