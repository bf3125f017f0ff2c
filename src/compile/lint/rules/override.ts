/**
 * `override`: a document with `override: true`. It replaces every earlier document of its mode instead of
 * composing as a ceiling, so it is the one way a file can widen a mode: lint always says so.
 * @module
 */
import { defineRule } from './define.js';

export default defineRule({
  id: 'override',
  meta: {
    description: 'a document replaces the earlier documents of its mode',
    severity: 'info',
    messages: {
      override: {
        text: 'this document replaces every earlier document of mode `{{mode}}`',
        help: 'remove `override: true` to compose as a ceiling, where the most restrictive decision wins',
      },
    },
    docs: {
      failing: 'mode: plan\noverride: true\ntools:\n  write: ask\ndefault: deny\n',
      passing: 'mode: plan\ntools:\n  web_fetch: deny\n',
      fix: 'Keep `override: true` only when you mean to replace the mode, including the built-in plan rules.',
    },
  },
  check(context, report) {
    const { document } = context.source;
    if (document.override !== true) return;
    report({ messageId: 'override', data: { mode: document.mode }, path: ['override'] });
  },
});
