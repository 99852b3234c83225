-- LÖVE configuration for the game-loop workload: no audio device is
-- needed under Xvfb, and a small window is enough.
function love.conf(t)
	t.modules.audio = false
	t.modules.sound = false
	t.modules.joystick = false
	t.window.width = 320
	t.window.height = 240
	t.window.vsync = 0
end
-- SPDX-License-Identifier: MIT
