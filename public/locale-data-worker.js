// Builds one Intl formatter and ends (src/app/boot/first-load.ts, loadLocaleDataApart). The locale
// data V8 loads for a process's first formatter, about 20 ms of CPU, is the whole process's: loaded
// here, on this worker's thread, the page's main thread then builds its own in a fraction of a ms.
new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", hour: "numeric" }).format(0);
close();
