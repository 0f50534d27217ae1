// The one way into OpenGL: GLAD's loader first, before anything that includes GL/gl.h.
#pragma once
#define GLFW_INCLUDE_NONE
#include <glad/gl.h>
