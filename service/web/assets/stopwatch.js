// The running stopwatch ticks in the page: elapsed time from its start, corrected by the
// difference between the server's clock and this browser's. Every 20 s the page asks whether the
// stopwatch it shows still runs as shown (it may have been halted or restarted through the API)
// and reloads when not.
const output = document.getElementById('elapsed');
const started = output === null ? null : Number(output.dataset.started);
const skew = output === null ? 0 : Number(output.dataset.now) - Date.now();

function pad(n) {
  return String(n).padStart(2, '0');
}

function tick() {
  if (output === null || started === null) return;
  const seconds = Math.max(0, Math.floor((Date.now() + skew - started) / 1000));
  output.textContent = `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
}

async function check() {
  try {
    const response = await fetch('/stopwatch/state', { credentials: 'same-origin', headers: { accept: 'application/json' } });
    if (!response.ok) return;
    const state = await response.json();
    const shown = started === null ? null : started;
    const now = state.running === null ? null : state.running.started;
    if (shown !== now) window.location.reload();
  } catch {
    // Offline for a moment: the next check tries again.
  }
}

tick();
setInterval(tick, 1000);
setInterval(check, 20_000);
