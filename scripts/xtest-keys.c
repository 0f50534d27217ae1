/* Presses keys and clicks in the X display, as a user would: for scripted runs of the window
 * on the GPU machine (scripts/device-run.sh), where no one is at the keyboard.
 * Arguments: key names as X knows them (F12, c, Tab), wN to wait N milliseconds, or click X Y
 * to click the left button at screen pixel X, Y.
 * XTest's header is not installed here, hence the declarations. */
#include <X11/Xlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int XTestFakeKeyEvent(Display* display, unsigned int keycode, Bool is_press, unsigned long delay);
int XTestFakeButtonEvent(Display* display, unsigned int button, Bool is_press, unsigned long delay);
int XTestFakeMotionEvent(Display* display, int screen, int x, int y, unsigned long delay);

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
    if (strcmp(argv[i], "click") == 0 && i + 2 < argc) {
      XTestFakeMotionEvent(display, -1, atoi(argv[i + 1]), atoi(argv[i + 2]), 0);
      XFlush(display);
      usleep(150000); /* a frame or two to see the mouse over the button */
      XTestFakeButtonEvent(display, 1, True, 0);
      XFlush(display);
      usleep(150000);
      XTestFakeButtonEvent(display, 1, False, 0);
      XFlush(display);
      i += 2;
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
