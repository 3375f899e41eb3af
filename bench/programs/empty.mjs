// An empty program: figure 9 measures what a start of Node costs, plainly and in register mode.
