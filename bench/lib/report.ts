// How bench modules report. Each section is Markdown: printed as soon as it is ready (so a long run
// shows progress) and collected, so bench/index.ts can write the whole run to bench/results/latest.md.
const sections: string[] = [];

/** Prints a Markdown section and keeps it for the results file. */
export function report(markdown: string): void {
  const text = markdown.trim();
  sections.push(text);
  console.log(`${text}\n`);
}

/** Everything reported so far, in order. */
export function reportedSections(): readonly string[] {
  return sections;
}
