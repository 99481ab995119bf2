"""Why a wrong engine's factory departed from the reference's: conservation laws checked
around the first wrong tick (`conservation`), the rules of the spec whose decisions there
the submission's state contradicts (`tracer`, `diagnosis`), and the trail of a wrong cell
back to the first decision that differed (`trail`). Plain Python and numpy, no Qt."""
