// What state the inspector is in, said plainly: nothing attached, connecting, attached, paused in
// the debugger, detached, and whether the probe dropped records. Offers the next step as buttons.

import { visibleText } from '../../../runtime-probe/src/analysis/visibleText';
import type { InspectorCommand, SessionView } from '../../../runtime-probe/src/analysis/inspector-messages';
import { clear, h } from './dom';
import { fmtInt } from './format';

export interface SessionBannerEvents {
  run(command: InspectorCommand): void;
  selectSession(id: string): void;
}

export class SessionBanner {
  readonly element: HTMLElement;

  constructor(
    private readonly doc: Document,
    private readonly events: SessionBannerEvents,
  ) {
    this.element = h(doc, 'div', { class: 'banner', role: 'status', 'data-testid': 'session-banner' });
  }

  render(shownSession: SessionView, awaitingSnapshot: boolean): void {
    const doc = this.doc;
    // Some strings below are appended as they are: the app's label and the reason, escaped first.
    const session = { ...shownSession, label: visibleText(shownSession.label), detail: visibleText(shownSession.detail) };
    clear(this.element);
    this.element.setAttribute('data-phase', session.phase);
    this.element.className = `banner phase-${session.phase}`;
    const line = h(doc, 'div', { class: 'banner-line' });
    const button = (label: string, command: InspectorCommand): HTMLElement => {
      const b = h(doc, 'button', { type: 'button', 'data-command': command }, label);
      b.addEventListener('click', () => this.events.run(command));
      return b;
    };
    switch (session.phase) {
      case 'empty':
        line.append(
          h(doc, 'strong', {}, 'No app attached. '),
          'Attach to a running app that uses busscope-probe, run the demo, or open a recorded trace.',
          h(
            doc,
            'span',
            { class: 'banner-actions' },
            button('Attach to Running App…', 'attach'),
            button('Run Demo App', 'runDemo'),
            button('Open Trace…', 'openTrace'),
          ),
        );
        break;
      case 'connecting':
        line.append(
          h(doc, 'span', { class: 'spinner', 'aria-hidden': 'true' }),
          h(doc, 'strong', {}, `Connecting to ${session.label}…`),
          session.detail ? ` ${session.detail}` : '',
        );
        break;
      case 'attached':
        line.append(
          h(doc, 'span', { class: 'dot live', 'aria-hidden': 'true' }),
          session.offline ? `Trace: ${session.label}` : `Attached to ${session.label}`,
          session.detail ? ` — ${session.detail}` : '',
        );
        break;
      case 'paused':
        line.append(
          h(doc, 'strong', {}, `⏸ ${session.label} is paused in the debugger. `),
          session.detail || 'Showing the data received before it stopped; live updates resume when it continues.',
        );
        break;
      case 'detached':
        if (session.offline) {
          // A trace is never live: "detached" would say nothing. Its detail is "trace file[: why it ended early]".
          const why = sentence(session.detail.replace(/^trace file:?\s*/i, ''), []);
          line.append(
            h(doc, 'strong', {}, `Trace: ${session.label}. `),
            why,
            'Showing the recorded data.',
            h(doc, 'span', { class: 'banner-actions' }, button('Attach to Running App…', 'attach')),
          );
        } else if (session.browser === true) {
          // A page is not attached to: it connects again when reloaded while Busscope accepts browser apps.
          line.append(
            h(doc, 'strong', {}, `Detached from ${session.label}. `),
            sentence(session.detail, ['detached', 'detach']),
            'Showing the last data received. Reload the page to connect it again. ',
            h(doc, 'span', { class: 'banner-actions' }, button('Accept Browser Apps', 'acceptBrowserApps')),
          );
        } else {
          line.append(
            h(doc, 'strong', {}, `Detached from ${session.label}. `),
            // The reason, unless it only repeats the heading ("detached" when the user detached).
            sentence(session.detail, ['detached', 'detach']),
            'Showing the last data received.',
            h(doc, 'span', { class: 'banner-actions' }, button('Attach to Running App…', 'attach')),
          );
        }
        break;
    }
    this.element.append(line);
    if (session.droppedRecords > 0) {
      this.element.append(
        h(
          doc,
          'div',
          { class: 'banner-line dropped', 'data-testid': 'dropped', 'data-dropped': session.droppedRecords },
          h(doc, 'strong', {}, `⚠ ${fmtInt(session.droppedRecords)} records dropped. `),
          'The app produced records faster than they could be delivered; the probe dropped and counted them, so counts here are lower than the app’s.',
        ),
      );
    }
    if (awaitingSnapshot) this.element.append(h(doc, 'div', { class: 'banner-line' }, 'Resynchronising with the extension…'));
    if (session.sessions.length > 1) {
      const select = h(doc, 'select', { 'aria-label': 'Session shown', class: 'session-picker' });
      for (const s of session.sessions) {
        const o = h(doc, 'option', { value: s.id }, `${s.label} (${s.phase})`);
        if (s.id === session.sessionId) o.selected = true;
        select.append(o);
      }
      select.addEventListener('change', () => this.events.selectSession(select.value));
      this.element.append(h(doc, 'div', { class: 'banner-line' }, h(doc, 'label', {}, 'Session: ', select)));
    }
  }
}

/** `detail` as a sentence of its own ("the app exited" → "The app exited. "), or '' when it is empty or only says one of `redundant`. */
export function sentence(detail: string, redundant: readonly string[]): string {
  const text = detail.trim().replace(/[.\s]+$/, '');
  if (text === '' || redundant.includes(text.toLowerCase())) return '';
  return `${text[0].toUpperCase()}${text.slice(1)}. `;
}
