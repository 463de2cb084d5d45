// Stop (the Dừng button) and the watchdog of runs with edited code: how a run in the worker is ended.
// - Cross-origin isolated page (COOP/COEP: the service worker adds them, build.py serve sends them): the
//   worker's interrupt buffer (worker-client.js interrupt()) raises KeyboardInterrupt in the running Python;
//   the run answers {ok: false, stopped: the line it was on} and Python stays loaded: constants, edits and
//   the last output stay where they are, and the next Run is immediate. If the run has not ended within
//   FALLBACK_MS and Python has not said that the Stop reached the lab's own code (worker-client.js
//   stopSeen: a student's bare `except:` swallowed the KeyboardInterrupt), the worker is ended and
//   started again, as below. Once Python has said so, Stop waits for the answer (on a slow or busy
//   machine, putting the namespaces back can take longer than FALLBACK_MS), up to ANSWER_MS; so it does
//   while the signal is still untaken (worker-client.js stopPending: on a busy 2-core machine the worker
//   thread can go more than FALLBACK_MS without running a Python line, and a Stop not yet taken is not a
//   Stop swallowed; issue 41).
// - Not isolated (a first visit before the service worker, plain http from another machine): the worker is
//   ended and Python starts again (seconds); the message says why. So on Safari/WebKit even where the page is
//   isolated: its Python worker (started from a blob: URL) gets no SharedArrayBuffer (issue 41).
// Emits 'stopped' {reason: 'user' | 'watchdog', patched, restarted, message} for the tools (code.js).
// Leaves out: the worker protocol (worker-client.js) and the run itself (app.js).

import { t } from '../words/i18n.js';

export const FALLBACK_MS = 1000;
export const ANSWER_MS = 15000;

// page: {store, worker, restartWorker(note), finishRun(), setStatus(status, text, detail), setNote(text),
//        showFieldErrors(errors), watchdogMs}
export function createStop(page) {
  const { store, worker } = page;

  // reason: 'user' (Dừng) or 'watchdog' (a run with edited code ran too long).
  function stopRun(reason) {
    const { inflight } = store.get();
    if (!inflight || inflight.stopping) return;
    const seconds = reason === 'watchdog' ? page.watchdogMs / 1000 : 0;
    if (worker.interrupt(inflight.id, seconds)) {
      clearTimeout(inflight.slowTimer);
      inflight.stopping = { reason, waited: 0, timer: setTimeout(() => fallBack(inflight), FALLBACK_MS) };
      page.setNote(t('stop.stopping'));
      return;
    }
    // An isolated page whose worker still has no interrupt buffer: WebKit does not isolate a blob: worker.
    restart(inflight, reason, globalThis.crossOriginIsolated ? 'workerNotIsolated' : 'notIsolated');
  }

  // FALLBACK_MS after the interrupt, and every FALLBACK_MS after: wait while Python has the Stop in hand.
  function fallBack(inflight) {
    if (store.get().inflight !== inflight) return; // the run ended meanwhile
    const { stopping } = inflight;
    stopping.waited += FALLBACK_MS;
    const inHand = worker.stopSeen(inflight.id) || worker.stopPending(inflight.id);
    if (inHand && stopping.waited < ANSWER_MS) {
      stopping.timer = setTimeout(() => fallBack(inflight), FALLBACK_MS);
      return;
    }
    restart(inflight, stopping.reason, 'ignored');
  }

  // The worker ended and started again; why: 'notIsolated' | 'workerNotIsolated' | 'ignored' (a stop.* word).
  function restart(inflight, reason, why) {
    if (store.get().inflight !== inflight) return; // the run ended meanwhile
    const first = reason === 'watchdog'
      ? t('app.stoppedRunEditedCode') + page.watchdogMs / 1000 + t('app.secondsPython')
      : t('app.runStoppedPython');
    const because = { ignored: t('stop.ignored'), notIsolated: t('stop.notIsolated'),
      workerNotIsolated: t('stop.workerNotIsolated') }[why];
    const message = first + ' ' + because;
    page.restartWorker(message);
    store.emit('stopped', { reason, patched: inflight.patched, restarted: true, message });
  }

  // A result {ok: false, stopped} (the interrupt worked): the lesson beside the edited function, the line
  // in the note, Python ready for the next run.
  function onStopped(result) {
    const { inflight } = store.get();
    const reason = inflight && inflight.stopping ? inflight.stopping.reason : 'user';
    const patched = Boolean(inflight && inflight.patched);
    page.finishRun();
    const errors = Array.isArray(result.errors) ? result.errors : [];
    if (errors.length) page.showFieldErrors(errors);
    const message = result.stopped + '\n' + t('stop.kept');
    page.setStatus('ready', t('stop.ready'), '');
    page.setNote(message);
    store.emit('stopped', { reason, patched, restarted: false, message });
  }

  // Clears the fallback timer of a run that ended (any answer).
  function settled(inflight) {
    if (inflight && inflight.stopping) clearTimeout(inflight.stopping.timer);
  }

  return { stopRun, onStopped, settled };
}
