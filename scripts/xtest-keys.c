/* Presses keys in the X display's focused window, as a user would: for scripted runs of the
 * window on the GPU machine (scripts/device-run.sh), where no one is at the keyboard.
 * Arguments: key names as X knows them (F12, c, Tab), or wN to wait N milliseconds.
 * XTest's header is not installed here, hence the declaration. */
#include <X11/Xlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int XTestFakeKeyEvent(Display* display, unsigned int keycode, Bool is_press,
                      unsigned long delay);

int main(int argc, char** argv) {
  Display* display = XOpenDisplay(NULL);
  if (!display) {
    fprintf(stderr, "xtest-keys: cannot open the display\n");
    return 1;
  }
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == 'w' && argv[i][1] >= '0' && argv[i][1] <= '9') {
      usleep(1000u * (unsigned)atoi(argv[i] + 1));
      continue;
    }
    const KeyCode key = XKeysymToKeycode(display, XStringToKeysym(argv[i]));
    if (!key) {
      fprintf(stderr, "xtest-keys: no key '%s'\n", argv[i]);
      return 2;
    }
    /* Held for a few frames, so that a frame polls it down. */
    XTestFakeKeyEvent(display, key, True, 0);
    XFlush(display);
    usleep(150000);
    XTestFakeKeyEvent(display, key, False, 0);
    XFlush(display);
  }
  XCloseDisplay(display);
  return 0;
}
