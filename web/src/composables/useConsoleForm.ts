/**
 * A console form's errors where they belong: each at its field (shown under it, the input marked
 * `aria-invalid` and described by the message), anything else above the submit button — and focus moved to
 * the first field in error, so a keyboard or screen-reader user lands on what to fix.
 *
 * `fields` maps the API's field paths (`email`, `new_password`, …) to the ids of the inputs that hold them.
 */
import { nextTick, reactive, ref } from 'vue';
import { ConsoleApiError } from '../api/console.ts';
import { describeError, fieldMessage } from '../lib/consoleErrors.ts';

export function useConsoleForm<Field extends string>(fields: Record<Field, string>) {
  // Typed as the plain record: Vue's Reactive<> of a generic record cannot be indexed by Field.
  const errors = reactive({}) as Partial<Record<Field, string>>;
  const formError = ref<string | null>(null);

  function clear() {
    for (const field of Object.keys(fields) as Field[]) delete errors[field];
    formError.value = null;
  }

  /** Focuses the first field (in `fields` order) that has an error. */
  async function focusFirst() {
    await nextTick();
    const first = (Object.keys(fields) as Field[]).find((field) => errors[field]);
    if (first) document.getElementById(fields[first])?.focus();
  }

  /** Client-side checks: sets the messages (null clears) and focuses the first field in error. */
  async function check(messages: Partial<Record<Field, string | null>>): Promise<boolean> {
    clear();
    for (const [field, message] of Object.entries(messages) as Array<[Field, string | null]>) {
      if (message) errors[field] = message;
    }
    const ok = !(Object.keys(fields) as Field[]).some((field) => errors[field]);
    if (!ok) await focusFirst();
    return ok;
  }

  /** A failed request: field problems at their fields, the rest as the form's message. */
  async function fail(error: unknown, context?: 'login' | 'signup') {
    clear();
    const rest: string[] = [];
    if (
      error instanceof ConsoleApiError &&
      error.code === 'validation_failed' &&
      error.fieldErrors.length > 0
    ) {
      for (const problem of error.fieldErrors) {
        if (problem.path in fields) errors[problem.path as Field] ??= fieldMessage(problem);
        else rest.push(fieldMessage(problem));
      }
      if (rest.length > 0) formError.value = `${rest.join('；')}。`;
    } else {
      formError.value = describeError(error, context);
    }
    await focusFirst();
  }

  /** Attributes for an input: `v-bind="attrs('email', 'email-hint')"` (the hint's id, if it has one). */
  function attrs(field: Field, hintId?: string) {
    const described = [errors[field] ? `${fields[field]}-error` : null, hintId ?? null]
      .filter(Boolean)
      .join(' ');
    return {
      'aria-invalid': errors[field] ? ('true' as const) : undefined,
      'aria-describedby': described || undefined,
    };
  }

  return { errors, formError, clear, check, fail, attrs };
}
