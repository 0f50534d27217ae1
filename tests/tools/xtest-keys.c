/* Presses keys and clicks in the X display, as a user would: for scripted runs of the window
 * (the window tests, scripts/soak.sh, the GPU machine's scripts/device/run.sh), where no one is
 * at the keyboard.
 * Arguments, done in order:
 *   NAME             a key as X names it (F12, c, Tab, Left), pressed and released; with
 *                    ctrl+, alt+ or shift+ before it (ctrl+c, alt+Left), held with those
 *   wN               wait N milliseconds
 *   until PATTERN    wait until a file matches the glob PATTERN (a capture written; a minute at
 *                    most, for a sanitized build on a loaded machine)
 *   holdN            hold each later key down N milliseconds (default 150: a few frames)
 *   click X Y        click the left button at screen pixel X, Y
 *   scroll X Y N     turn the wheel N notches at X, Y (N > 0 up, N < 0 down)
 *   window TITLE     act on the top-level window whose title holds TITLE (waited for up to ten
 *                    seconds, until it is shown), focused (needed by the three below; without
 *                    it they fail), the pointer parked in the screen's far corner
 *   resize W H       resize that window to W x H pixels
 *   iconify          minimise it; restore: map it again
 * Without a window manager (Xvfb) minimising is done as one would: the window unmapped and its
 * WM_STATE set, which is what toolkits read.
 * XTest's header is not installed here, hence the declarations. */
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int XTestFakeKeyEvent(Display* display, unsigned int keycode, Bool is_press, unsigned long delay);
int XTestFakeButtonEvent(Display* display, unsigned int button, Bool is_press, unsigned long delay);
int XTestFakeMotionEvent(Display* display, int screen, int x, int y, unsigned long delay);

/* A window that went away between two commands is not this program's failure. */
static int ignore_x_errors(Display* display, XErrorEvent* event) {
  (void)display, (void)event;
  return 0;
}

static Window find_window(Display* display, Window parent, const char* title) {
  Window root, up, *children = NULL, found = 0;
  unsigned n = 0;
  if (!XQueryTree(display, parent, &root, &up, &children, &n)) return 0;
  for (unsigned i = 0; i < n && !found; ++i) {
    char* name = NULL;
    if (XFetchName(display, children[i], &name) && name && strstr(name, title)) found = children[i];
    if (name) XFree(name);
    if (!found) found = find_window(display, children[i], title);
  }
  if (children) XFree(children);
  return found;
}

static void set_wm_state(Display* display, Window window, long state) {
  const Atom wm_state = XInternAtom(display, "WM_STATE", False);
  const long value[2] = {state, None};
  XChangeProperty(display, window, wm_state, wm_state, 32, PropModeReplace,
                  (const unsigned char*)value, 2);
}

static void button(Display* display, unsigned b) {
  XTestFakeButtonEvent(display, b, True, 0);
  XFlush(display);
  usleep(20000);
  XTestFakeButtonEvent(display, b, False, 0);
  XFlush(display);
  usleep(20000);
}

/* The window focused, and the pointer parked in the screen's far corner, clear of it: where an
 * earlier run left the pointer, over a greyed button, the window showed that button's tooltip,
 * and a capture compared with render's image counted the tooltip as pixels that differ. */
static void take(Display* display, Window window) {
  XSetInputFocus(display, window, RevertToPointerRoot, CurrentTime);
  XTestFakeMotionEvent(display, -1, DisplayWidth(display, DefaultScreen(display)) - 1,
                       DisplayHeight(display, DefaultScreen(display)) - 1, 0);
  XFlush(display);
  /* GLFW drops keys pressed in the first tenth of a second after its window shows. */
  usleep(300000);
}

int main(int argc, char** argv) {
  Display* display = XOpenDisplay(NULL);
  if (!display) {
    fprintf(stderr, "xtest-keys: cannot open the display\n");
    return 1;
  }
  XSetErrorHandler(ignore_x_errors);
  Window window = 0;
  unsigned hold_ms = 150;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (a[0] == 'w' && a[1] >= '0' && a[1] <= '9') {
      usleep(1000u * (unsigned)atoi(a + 1));
    } else if (strncmp(a, "hold", 4) == 0 && a[4] >= '0' && a[4] <= '9') {
      hold_ms = (unsigned)atoi(a + 4);
    } else if (strcmp(a, "click") == 0 && i + 2 < argc) {
      XTestFakeMotionEvent(display, -1, atoi(argv[i + 1]), atoi(argv[i + 2]), 0);
      XFlush(display);
      usleep(150000); /* a frame or two to see the mouse over the button */
      XTestFakeButtonEvent(display, 1, True, 0);
      XFlush(display);
      usleep(150000);
      XTestFakeButtonEvent(display, 1, False, 0);
      XFlush(display);
      i += 2;
    } else if (strcmp(a, "until") == 0 && i + 1 < argc) {
      const char* pattern = argv[++i];
      int found = 0;
      for (int tries = 0; tries < 1200 && !found; ++tries) {
        glob_t g;
        found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
        globfree(&g);
        if (!found) usleep(50000);
      }
      if (!found) fprintf(stderr, "xtest-keys: no file matched '%s' in a minute\n", pattern);
    } else if (strcmp(a, "scroll") == 0 && i + 3 < argc) {
      XTestFakeMotionEvent(display, -1, atoi(argv[i + 1]), atoi(argv[i + 2]), 0);
      const int notches = atoi(argv[i + 3]);
      for (int k = 0; k < abs(notches); ++k) button(display, notches > 0 ? 4 : 5);
      i += 3;
    } else if (strcmp(a, "window") == 0 && i + 1 < argc) {
      ++i;
      window = 0;
      /* The program may still be starting: it is looked for for up to ten seconds. */
      for (int tries = 0; tries < 200; ++tries) {
        window = find_window(display, DefaultRootWindow(display), argv[i]);
        XWindowAttributes at;
        if (window && XGetWindowAttributes(display, window, &at) && at.map_state == IsViewable)
          break;
        window = 0;
        usleep(50000);
      }
      if (!window) {
        fprintf(stderr, "xtest-keys: no window titled '%s'\n", argv[i]);
        return 1;
      }
      take(display, window);
    } else if (window && strcmp(a, "resize") == 0 && i + 2 < argc) {
      XResizeWindow(display, window, (unsigned)atoi(argv[i + 1]), (unsigned)atoi(argv[i + 2]));
      XFlush(display);
      i += 2;
    } else if (window && strcmp(a, "iconify") == 0) {
      set_wm_state(display, window, IconicState);
      XUnmapWindow(display, window);
      XFlush(display);
    } else if (window && strcmp(a, "restore") == 0) {
      set_wm_state(display, window, NormalState);
      XMapRaised(display, window);
      take(display, window);
    } else if (strcmp(a, "resize") == 0 || strcmp(a, "iconify") == 0 || strcmp(a, "restore") == 0) {
      fprintf(stderr, "xtest-keys: '%s' needs 'window TITLE' before it\n", a);
      return 2;
    } else {
      static const struct {
        const char* prefix;
        const char* keysym;
      } modifiers[] = {{"ctrl+", "Control_L"}, {"alt+", "Alt_L"}, {"shift+", "Shift_L"}};
      KeyCode held[3];
      int n_held = 0;
      for (int m = 0; m < 3; ++m) {
        const size_t len = strlen(modifiers[m].prefix);
        if (n_held < 3 && strncmp(a, modifiers[m].prefix, len) == 0 && a[len]) {
          held[n_held++] = XKeysymToKeycode(display, XStringToKeysym(modifiers[m].keysym));
          a += len;
          m = -1; /* another modifier may follow */
        }
      }
      const KeyCode key = XKeysymToKeycode(display, XStringToKeysym(a));
      if (!key) {
        fprintf(stderr, "xtest-keys: no key '%s'\n", a);
        return 2;
      }
      for (int m = 0; m < n_held; ++m) XTestFakeKeyEvent(display, held[m], True, 0);
      /* Held for a few frames, so that a frame polls it down. */
      XTestFakeKeyEvent(display, key, True, 0);
      XFlush(display);
      usleep(1000u * hold_ms);
      XTestFakeKeyEvent(display, key, False, 0);
      for (int m = n_held - 1; m >= 0; --m) XTestFakeKeyEvent(display, held[m], False, 0);
      XFlush(display);
    }
  }
  XCloseDisplay(display);
  return 0;
}
