// Step counts iterated directly in MPFR, which the perturbation tests hold the renderers to, and
// which of a view's pixels their centre decides.
#pragma once

#include <mpfr.h>

#include <string>
#include <vector>

#include "render/mpfr_temps.h"

namespace mp::test {

// z^2 + c from 0 in `bits` until |z|^2 > 256: the step count, as the renderers count it.
inline unsigned direct_count(mpfr_srcptr cx, mpfr_srcptr cy, int bits, unsigned max_iter) {
  MpfrTemps<5> z(bits);
  MpfrTemps<3> t(bits);
  mpfr_ptr x = z[0], y = z[1], x2 = z[2], y2 = z[3], r = z[4];
  mpfr_set_zero(x, 1);
  mpfr_set_zero(y, 1);
  for (unsigned n = 1; n <= max_iter; ++n) {
    square_add(x, y, cx, cy, t);
    mpfr_sqr(x2, x, MPFR_RNDN);
    mpfr_sqr(y2, y, MPFR_RNDN);
    mpfr_add(r, x2, y2, MPFR_RNDN);
    if (mpfr_cmp_ui(r, 256) > 0) return n;
  }
  return max_iter;
}

// A view as the user types it: centre and span in decimal.
struct DecimalView {
  std::string cx, cy, span;
  unsigned max_iter = 0;
};

// MPFR's count at the point (px + 0.5, py + 0.5) of an image `width` x `height` of the view, in
// pixels from its top left: c = centre + span / width x (px + 0.5 - width / 2, height / 2 - py -
// 0.5), as DeepGrid places pixels. Fractional px, py give points between pixel centres.
inline unsigned count_at(const DecimalView& v, int width, int height, int bits, double px,
                         double py) {
  MpfrTemps<4> m(bits);
  mpfr_ptr cx = m[0], cy = m[1], s = m[2], t = m[3];
  mpfr_set_str(cx, v.cx.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(cy, v.cy.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(s, v.span.c_str(), 10, MPFR_RNDN);
  mpfr_div_ui(s, s, static_cast<unsigned long>(width), MPFR_RNDN);
  mpfr_mul_d(t, s, px + 0.5 - width / 2.0, MPFR_RNDN);
  mpfr_add(cx, cx, t, MPFR_RNDN);
  mpfr_mul_d(t, s, height / 2.0 - py - 0.5, MPFR_RNDN);
  mpfr_add(cy, cy, t, MPFR_RNDN);
  return direct_count(cx, cy, bits, v.max_iter);
}

// A view a scripted explorer reached: from -0.75+0.1i, span 0.01, forty zooms by ten, each toward
// one of the 2% of pixels with the most steps (the set's boundary), the limit twice the highest
// count seen. Unlike the regular spirals about i, most of it is filaments; the centre's orbit,
// the reference, escapes at step 5,180 where pixels run past 6,000.
inline const DecimalView kExploredView{"-0.744725992682126113838212247475905236988415078123",
                                       "0.101862208672522876511408617209092151289494453125",
                                       "1e-42", 14804};

// Near minibrots past double's range (found from 1.3e-301 + i and 1.3e-351 + i by the ball
// method and Newton's method), where the reference comes back nearer 0 than double's squares
// reach. Off a period-798 minibrot 2.1e-600 across (the centre 30 and 10 sizes from its nucleus,
// span 120 sizes): |Z| and |d| near 1e-299 at its returns, whose squares in double are 0, so that
// the rebase's test must be taken in the extended range.
inline const DecimalView kBelowSquaresView{
    "1.56798746225213520814653401670975686745570264528123437896107160342254658412026476287502"
    "4871530016759850224121986174238107470366460050538675915572611489317635849896254183803219"
    "6299266107121059491946649495825093455462331327497139265584538875502240872068225343373246"
    "5848545222146670232803798901676358423711787603030665700766928098525258163979916828943789"
    "4117286436861309202948801310395163416014943410701329284777246307214739528061226206413750"
    "7329721519698554140135565664924323807843879573301817895759829808130697064183264354943104"
    "9574744813060812638267166200429923311020645130859413670624344705544504750142971603525543"
    "6280052252655426694418973476852819783553076780607630591004739378259834000591462820273142"
    "6226252442165769745157e-300",
    "9.99999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
    "9999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
    "9999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
    "9999999999999999999999999999999999998098578715602128431865740360480957146239137570609354"
    "5641308719926136760753669369286777055811222176520961861404989773572035424272140627357028"
    "4358574395789727411604224846422658922735329407337965913418090650962077889923193812502270"
    "9535717283965406667266828356778353600177222739729471383987439348341783547248571912754041"
    "3346072695367148616491513343224929483984966161468942275829163203268266846871029496907954"
    "0690252487828816007369e-1",
    "2.532612e-598", 12000};
// Inside a period-931 minibrot 3.9e-700 across (the centre half and a fifth of a size from its
// nucleus, span 8 sizes): the centre's orbit, the reference, comes back to about 1e-349, which a
// double holds as 0.
inline const DecimalView kBelowDoubleView{
    "-7.1445499083835825480510505014030367318776922340184390113020375416153825172825534758015"
    "4090851047537800817404987027455190188239952258565419897143240994945602754524762120166943"
    "5110355844250108934091294353888974058549075961231911559158518317716490030344853515110036"
    "8098074347473700887853424713241908155807146624396841681372199239499674743183597522422358"
    "9345318366645835258643264776612275864932123027703726640728018955486603101236324332161198"
    "3302799725460485361033286778462436187383872951835074942418479633988575918847743205047316"
    "4708372240123758359771518523234463563371013688136445872121353536077289360881340441412546"
    "5770655786814818536365015231708195708010890711396960090798517248082287300113444757279875"
    "6941548109652661808874606468811238435253860073264377649461089262533302511374170367118675"
    "4363897266242927739425556943692875318577100224871231435e-351",
    "9.99999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
    "9999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
    "9999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"
    "9999999999999999999999999999999999999999999999999999999999999999999999999999999999999985"
    "6819215975205763166007351882249401691938684020346208415744214280403802745461826815694081"
    "1180332640385202736902422450045993798750755856146636802608093899586247657348652325598480"
    "3340996863954755872275404010929678427116869950239511399717660350460827848125238675715293"
    "6501163611021682256132080967947836032660952254967855333556992215062872259581546298518544"
    "3543458509048660527268508129141826251961435334546822068516017386907631927996756858947886"
    "107566377381530445150250719422274850801481101779250762e-1",
    "3.090776e-699", 20000};

// A sampled pixel and MPFR's count there. Near the set's boundary a pixel's count may change
// within a hair of its centre (its neighbourhood holds detail far finer than a pixel): where
// the counts a hair to either side differ from the centre's, the centre does not decide the
// count to that hair, and arithmetic that rounds the pixel's difference d a step to relative
// errors that move the pixel by more than the hair cannot be held to MPFR's count there. For
// differences in double (53 bits) 1e-10 of a pixel is such a hair; in float (24 bits) 1e-4 to 3e-4.
struct DecidedSample {
  int px = 0, py = 0;
  unsigned count = 0;
  bool decided = true;
};

// Every `stride`-th pixel of every `stride`-th row, decided to `hair` (in pixels).
inline std::vector<DecidedSample> decided_samples(const DecimalView& v, int width, int height,
                                                  int bits, int stride, double hair) {
  std::vector<DecidedSample> out;
  for (int py = 0; py < height; py += stride)
    for (int px = 0; px < width; px += stride) {
      DecidedSample s{px, py, count_at(v, width, height, bits, px, py), true};
      for (const double d : {hair, -hair})
        s.decided = s.decided && count_at(v, width, height, bits, px + d, py + 0.7 * d) == s.count;
      out.push_back(s);
    }
  return out;
}

// How a frame's counts (row-major, `width` a row) meet the samples.
struct DecidedAgreement {
  int sampled = 0, exact = 0;  // every sample
  int decided = 0, decided_exact = 0, decided_within_one = 0;
};

inline DecidedAgreement agreement(const std::vector<DecidedSample>& samples,
                                  const std::vector<unsigned>& counts, int width) {
  DecidedAgreement a;
  for (const DecidedSample& s : samples) {
    const unsigned got = counts[static_cast<std::size_t>(s.py) * width + s.px];
    ++a.sampled;
    a.exact += got == s.count;
    if (!s.decided) continue;
    ++a.decided;
    a.decided_exact += got == s.count;
    a.decided_within_one += (got > s.count ? got - s.count : s.count - got) <= 1;
  }
  return a;
}

}  // namespace mp::test
