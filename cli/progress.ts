// A progress bar on stderr for the long-running commands (`seed`, `export`): redrawn in place on a
// terminal, ten plain lines otherwise (a log file or CI output gets no carriage returns).

export interface Progress {
  update(done: number, total: number): void;
  /** Ends the bar's line on a terminal. */
  finish(): void;
}

function bar(done: number, total: number): string {
  const width = 30;
  const filled = total === 0 ? width : Math.min(width, Math.round((done / total) * width));
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done.toLocaleString('en')} / ${total.toLocaleString('en')}`;
}

export function progressOn(stream: NodeJS.WriteStream): Progress {
  const interactive = stream.isTTY === true;
  let shownTenth = -1;
  let lastDrawMs = 0;
  let drawn = false;
  return {
    update(done, total) {
      if (interactive) {
        // At most ten redraws a second: a million rows must not mean a million terminal writes.
        const now = Date.now();
        if (now - lastDrawMs < 100 && done < total) return;
        lastDrawMs = now;
        drawn = true;
        stream.write(`\r${bar(done, total)}`);
        return;
      }
      const tenth = Math.floor((done / Math.max(total, 1)) * 10);
      if (tenth > shownTenth) {
        shownTenth = tenth;
        stream.write(`${bar(done, total)}\n`);
      }
    },
    finish() {
      if (interactive && drawn) stream.write('\n');
    },
  };
}
