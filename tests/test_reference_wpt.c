/* Reference backend against literal WPT conformance cases (gru, lstm, convTranspose2d, resample2d, normalization, gather/scatter, quantize, reduce, cumulativeSum, pad). */
#include <math.h>

#include "tests/reftest.h"
#include "tests/test.h"

/* ---- literal data copied from shared/conformance (WPT, BSD-3-Clause; see LICENSE.wpt.md there) */

/* gru.json: "gru float32 tensors steps=2 with all options" (tolerance ULP 6) */
/* float32 [2, 3, 2] */
static const double cx_gru_all_gruInput[] = { 1, 2, 2, 1, 1, 1, 3, 4, 1, 2, 1, 1 };
/* float32 [1, 12, 2] */
static const double cx_gru_all_gruWeight[] = {
	1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0,
	0.1
};
/* float32 [1, 12, 4] */
static const double cx_gru_all_gruRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [1, 12] */
static const double cx_gru_all_gruBias[] = { 1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5 };
/* float32 [1, 12] */
static const double cx_gru_all_gruRecurrentBias[] = { 1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5 };
/* float32 [1, 3, 4] */
static const double cx_gru_all_gruInitialHiddenState[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
/* float32 [1, 3, 4] */
static const double cx_gru_all_gruOutput1[] = {
	0, 0, -0.24974998831748962, -18.59588623046875, -2.0657243728637695, -10.551867485046387,
	-1.3937838077545166, -15.2454833984375, -1.1589999198913574, -9.476999282836914,
	-1.1589999198913574, -11.319169044494629
};
/* float32 [2, 1, 3, 4] */
static const double cx_gru_all_gruOutput2[] = {
	0, 0, -0.24974998831748962, -18.59588623046875, -2.0657243728637695, -10.551867485046387,
	-1.3937838077545166, -15.2454833984375, -1.1589999198913574, -9.476999282836914,
	-1.1589999198913574, -11.319169044494629, 0, 0, -0.25, -4.760000228881836, 0, 0, -0.25,
	-3.8399999141693115, -1, -3, -1, -3.4100000858306885
};

/* gru.json: "gru float32 tensors steps=2 with options.bias, options.recurrentBias, options.direction='both' and options.returnSequence=true" (tolerance ULP 6) */
/* float32 [2, 3, 2] */
static const double cx_gru_both_gruInput[] = { 1, 2, 2, 1, 1, 1, 3, 4, 1, 2, 1, 1 };
/* float32 [2, 12, 2] */
static const double cx_gru_both_gruWeight[] = {
	1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0,
	0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5,
	-0.5, 0, 0.1
};
/* float32 [2, 12, 4] */
static const double cx_gru_both_gruRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1
};
/* float32 [2, 12] */
static const double cx_gru_both_gruBias[] = {
	1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5
};
/* float32 [2, 12] */
static const double cx_gru_both_gruRecurrentBias[] = {
	1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5
};
/* float32 [2, 3, 4] */
static const double cx_gru_both_gruOutput1[] = {
	0, 0, -0.33243751525878906, -23.753076553344727, 0, 0, 0, -2.213315725326538,
	-1.1077498197555542, -12.323249816894531, -1.1077498197555542, -14.518925666809082, 0, 0,
	-0.28068751096725464, -25.444257736206055, -1.7041922807693481, -9.28022289276123,
	-1.4041223526000977, -21.154621124267578, -1.1077498197555542, -12.323249816894531,
	-1.1077498197555542, -14.518925666809082
};
/* float32 [2, 2, 3, 4] */
static const double cx_gru_both_gruOutput2[] = {
	0, 0, -0.375, -5.7599992752075195, -6, -22.5, -3.375, -5.114999771118164, -1.5, -4.5, -1.5,
	-5.114999771118164, 0, 0, -0.28068751096725464, -25.444257736206055, -1.7041922807693481,
	-9.28022289276123, -1.4041223526000977, -21.154621124267578, -1.1077498197555542,
	-12.323249816894531, -1.1077498197555542, -14.518925666809082, 0, 0, -0.33243751525878906,
	-23.753076553344727, 0, 0, 0, -2.213315725326538, -1.1077498197555542, -12.323249816894531,
	-1.1077498197555542, -14.518925666809082, 0, 0, -0.375, -7.139999866485596, 0, 0, -0.375,
	-5.7599992752075195, -1.5, -4.5, -1.5, -5.114999771118164
};

/* gru.json: "gru float32 tensors steps=1 with options.bias, options.recurrentBias, options.activations=['relu', 'relu'] and options.layout='rzn'" (tolerance ULP 6) */
/* float32 [1, 3, 2] */
static const double cx_gru_rzn_gruInput[] = { 1, 2, 2, 1, 1, 1 };
/* float32 [1, 12, 2] */
static const double cx_gru_rzn_gruWeight[] = {
	1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0,
	0.1
};
/* float32 [1, 12, 4] */
static const double cx_gru_rzn_gruRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [1, 12] */
static const double cx_gru_rzn_gruBias[] = { 1, 1, 1, 1, 1, 2, 1, 2, 0.5, 0.5, 0.5, 0.5 };
/* float32 [1, 12] */
static const double cx_gru_rzn_gruRecurrentBias[] = { 1, 1, 1, 1, 1, 2, 1, 2, 0.5, 0.5, 0.5, 0.5 };
/* float32 [1, 3, 4] */
static const double cx_gru_rzn_gruOutput[] = {
	0, 0, -0.25, -3.84, -4, -15, -2.25, -3.41, -1, -3, -1, -3.41
};

/* gru_cell.json: "gruCell float32 tensors with all options" (tolerance ULP 3) */
/* float32 [3, 2] */
static const double cx_grucell_all_gruCellInput[] = { 1, 2, 2, 1, 1, 1 };
/* float32 [12, 2] */
static const double cx_grucell_all_gruCellWeight[] = {
	1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0, 0.1, 1, -1, 2, -2, 0.5, -0.5, 0,
	0.1
};
/* float32 [12, 4] */
static const double cx_grucell_all_gruCellRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [3, 4] */
static const double cx_grucell_all_gruCellHiddenState[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
/* float32 [12] */
static const double cx_grucell_all_gruCellBias[] = { 1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5 };
/* float32 [12] */
static const double cx_grucell_all_gruCellRecurrentBias[] = {
	1, 2, 1, 2, 1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5
};
/* float32 [3, 4] */
static const double cx_grucell_all_gruCellOutput[] = {
	0, 0, -0.25, -3.84, -4, -15, -2.25, -3.41, -1, -3, -1, -3.41
};

/* lstm.json: "lstm float32 tensors steps=2 with all options" (tolerance ULP 3) */
/* float32 [2, 2, 2] */
static const double cx_lstm_all_lstmInput[] = { 1, 2, 2, 1, 3, 4, 1, 2 };
/* float32 [1, 8, 2] constant */
static const double cx_lstm_all_lstmWeight[] = {
	1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2
};
/* float32 [1, 8, 2] constant */
static const double cx_lstm_all_lstmRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [1, 8] constant */
static const double cx_lstm_all_lstmBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [1, 8] constant */
static const double cx_lstm_all_lstmRecurrentBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [1, 6] constant */
static const double cx_lstm_all_lstmPeepholeWeight[] = { 0, 0, 0, 0, 0, 0 };
/* float32 [1, 2, 2] */
static const double cx_lstm_all_lstmInitialHiddenState[] = { 0, 0, 0, 0 };
/* float32 [1, 2, 2] */
static const double cx_lstm_all_lstmInitialCellState[] = { 0, 0, 0, 0 };
/* float32 [1, 2, 2] */
static const double cx_lstm_all_lstmOutput1[] = {
	10.469000816345215, 58.02900695800781, 74.52900695800781, 518.948974609375
};
/* float32 [1, 2, 2] */
static const double cx_lstm_all_lstmOutput2[] = {
	5.510000228881836, 20.01000213623047, 19.110000610351562, 75.20999908447266
};
/* float32 [2, 1, 2, 2] */
static const double cx_lstm_all_lstmOutput3[] = {
	10.469000816345215, 58.02900695800781, 74.52900695800781, 518.948974609375, 1, 8, 1, 8
};

/* lstm.json: "lstm float32 tensors steps=2 with options.bias, options.recurrentBias, options.activations=['relu', 'relu', 'relu'] and options.direction='backward'" (tolerance ULP 3) */
/* float32 [2, 2, 2] */
static const double cx_lstm_back_lstmInput[] = { 1, 2, 2, 1, 3, 4, 1, 2 };
/* float32 [1, 8, 2] constant */
static const double cx_lstm_back_lstmWeight[] = {
	1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2
};
/* float32 [1, 8, 2] constant */
static const double cx_lstm_back_lstmRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [1, 8] constant */
static const double cx_lstm_back_lstmBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [1, 8] constant */
static const double cx_lstm_back_lstmRecurrentBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [1, 2, 2] */
static const double cx_lstm_back_lstmOutput1[] = {
	10.469000816345215, 58.02900695800781, 74.52900695800781, 518.948974609375
};
/* float32 [1, 2, 2] */
static const double cx_lstm_back_lstmOutput2[] = {
	5.510000228881836, 20.01000213623047, 19.110000610351562, 75.20999908447266
};

/* lstm_cell.json: "lstmCell float32 tensors with options.bias, options.recurrentBias, options.activations=['relu', 'relu', 'relu'] and options.layout='ifgo'" (tolerance ULP 1) */
/* float32 [2, 2] */
static const double cx_lstmcell_ifgo_lstmCellInput[] = { 1, 2, 2, 1 };
/* float32 [8, 2] constant */
static const double cx_lstmcell_ifgo_lstmCellWeight[] = {
	1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2, 1, -1, 2, -2
};
/* float32 [8, 2] constant */
static const double cx_lstmcell_ifgo_lstmCellRecurrentWeight[] = {
	0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1
};
/* float32 [2, 2] */
static const double cx_lstmcell_ifgo_lstmCellHiddenState[] = { 0, 0, 0, 0 };
/* float32 [2, 2] */
static const double cx_lstmcell_ifgo_lstmCellCellState[] = { 0, 0, 0, 0 };
/* float32 [8] constant */
static const double cx_lstmcell_ifgo_lstmCellBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [8] constant */
static const double cx_lstmcell_ifgo_lstmCellRecurrentBias[] = { 1, 2, 1, 2, 1, 2, 1, 2 };
/* float32 [2, 2] */
static const double cx_lstmcell_ifgo_lstmCellOutput1[] = { 1, 8, 27, 216 };
/* float32 [2, 2] */
static const double cx_lstmcell_ifgo_lstmCellOutput2[] = { 1, 4, 9, 36 };

/* conv_transpose2d.json: "convTranspose2d float32 4D input and filter tensors options.outputPadding" (tolerance ULP 18) */
/* float32 [1, 1, 3, 3] */
static const double cx_ct_opad_convTranspose2dInput[] = {
	0.05605664849281311, 0.7114229798316956, 0.6529743671417236, 0.38622909784317017,
	0.3870837390422821, 0.9461629390716553, 0.09573192149400711, 0.9234652519226074,
	0.636277973651886
};
/* float32 [1, 2, 3, 3] constant */
static const double cx_ct_opad_convTranspose2dFilter[] = {
	0.8614422678947449, 0.6267672777175903, 0.6366490125656128, 0.8382642269134521,
	0.11884837597608566, 0.9921330213546753, 0.3285411298274994, 0.8742373585700989,
	0.7205492258071899, 0.9801966547966003, 0.06169835478067398, 0.3220160901546478,
	0.7498031854629517, 0.3930714726448059, 0.13811933994293213, 0.28385090827941895,
	0.4235861301422119, 0.1448512077331543
};
/* float32 [1, 2, 10, 8] */
static const double cx_ct_opad_convTranspose2dOutput[] = {
	0.04828956723213196, 0.03513447195291519, 0.6485382318496704, 0.4458966553211212,
	1.015426516532898, 0.4092629551887512, 0.4157154858112335, 0, 0.0469902828335762,
	0.0066622416488826275, 0.6519761085510254, 0.08455146849155426, 1.2531912326812744,
	0.07760494202375412, 0.6478374600410461, 0, 0.018416915088891983, 0.04900681599974632,
	0.27412328124046326, 0.6219525337219238, 0.7271442413330078, 0.5708546042442322,
	0.4705001711845398, 0, 0.3327140808105469, 0.24207575619220734, 0.5793426632881165,
	0.24261142313480377, 1.0615012645721436, 0.593023955821991, 0.6023737192153931, 0,
	0.32376202940940857, 0.04590269923210144, 0.7076690793037415, 0.0460042729973793,
	1.177173137664795, 0.11244992911815643, 0.9387195110321045, 0, 0.12689214944839478,
	0.3376559019088745, 0.40547001361846924, 0.3384030759334564, 0.5897663235664368,
	0.8271709680557251, 0.6817569732666016, 0, 0.08246752619743347, 0.06000163406133652,
	0.8564596176147461, 0.5787978172302246, 1.1360399723052979, 0.39879822731018066,
	0.4050857424736023, 0, 0.0802486464381218, 0.011377583257853985, 0.8690866827964783,
	0.1097523421049118, 1.4495694637298584, 0.0756206065416336, 0.6312723755836487, 0,
	0.03145187348127365, 0.08369242399930954, 0.37237587571144104, 0.8073278069496155,
	0.8744456768035889, 0.556257963180542, 0.45846959948539734, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0.05494653806090355, 0.0034586030524224043, 0.7153855562210083, 0.04389362782239914,
	0.869132936000824, 0.04028744250535965, 0.21026825904846191, 0, 0.04203145205974579,
	0.02203426882624626, 0.5411697030067444, 0.2796400785446167, 0.5878635048866272,
	0.25666558742523193, 0.0901883915066719, 0, 0.015911730006337166, 0.023744819685816765,
	0.21005792915821075, 0.30134889483451843, 0.2883978486061096, 0.27659088373184204,
	0.09458412230014801, 0, 0.3785804808139801, 0.02382970042526722, 0.5037901997566223,
	0.0238824300467968, 1.0520728826522827, 0.05837669596076012, 0.3046796917915344, 0,
	0.2895958125591278, 0.15181563794612885, 0.3435823321342468, 0.15215156972408295,
	0.7628997564315796, 0.37190964818000793, 0.13068340718746185, 0, 0.1096314787864685,
	0.16360129415988922, 0.16581982374191284, 0.16396330296993256, 0.3246387541294098,
	0.400781512260437, 0.13705284893512726, 0, 0.09383610635995865, 0.00590650225058198,
	0.9360047578811646, 0.05697628855705261, 0.9210482239723206, 0.03925730288028717,
	0.20489174127578735, 0, 0.07178010046482086, 0.03762948885560036, 0.7056396007537842,
	0.36298784613609314, 0.6046316623687744, 0.2501027286052704, 0.08788229525089264, 0,
	0.027173593640327454, 0.04055071249604225, 0.27599334716796875, 0.3911670744419098,
	0.3143731355667114, 0.26951852440834045, 0.09216563403606415, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

/* conv_transpose2d.json: "convTranspose2d options.padding is the same upper padding" (tolerance ULP 18) */
/* float32 [1, 3, 3, 1] */
static const double cx_ct_nhwc_convTranspose2dInput[] = {
	0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5
};
/* float32 [2, 3, 3, 1] constant */
static const double cx_ct_nhwc_convTranspose2dFilter[] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
};
/* float32 [1, 6, 6, 2] */
static const double cx_ct_nhwc_convTranspose2dOutput[] = {
	0.5, 0.5, 0.5, 0.5, 1, 1, 0.5, 0.5, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1, 1, 0.5, 0.5, 1, 1,
	0.5, 0.5, 1, 1, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 0.5, 0.5, 0.5, 0.5, 1, 1, 0.5, 0.5, 1, 1, 0.5,
	0.5, 1, 1, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 0.5, 0.5, 0.5, 0.5, 1, 1, 0.5, 0.5, 1, 1, 0.5, 0.5
};

/* conv_transpose2d.json: "convTranspose2d float32 4D input and filter tensors options.groups=2 options.strides=[2, 2]" (tolerance ULP 8) */
/* float32 [1, 2, 2, 2] */
static const double cx_ct_groups_convTranspose2dInput[] = {
	0.8161798119544983, 0.5442776083946228, 0.7910669445991516, 0.36564111709594727,
	0.25429198145866394, 0.20815767347812653, 0.7023073434829712, 0.5734469890594482
};
/* float32 [2, 1, 2, 2] constant */
static const double cx_ct_groups_convTranspose2dFilter[] = {
	0.09232201427221298, 0.31896016001701355, 0.5445202589035034, 0.6582807898521423,
	0.9634373188018799, 0.012118860147893429, 0.9230011701583862, 0.4781944155693054
};
/* float32 [1, 2, 4, 4] */
static const double cx_ct_groups_convTranspose2dOutput[] = {
	0.07535136491060257, 0.26032882928848267, 0.050248805433511734, 0.1736028790473938,
	0.44442644715309143, 0.537275493144989, 0.29637017846107483, 0.3582874834537506,
	0.07303289324045181, 0.2523188292980194, 0.03375672549009323, 0.11662495136260986,
	0.4307519793510437, 0.5207441449165344, 0.19909898936748505, 0.24069452285766602,
	0.2449943870306015, 0.0030817289371043444, 0.20054687559604645, 0.002522633643820882,
	0.23471179604530334, 0.12160100787878036, 0.19212977588176727, 0.09953983873128891,
	0.6766291260719299, 0.008511164225637913, 0.5524802207946777, 0.00694952392950654,
	0.6482304930686951, 0.3358394503593445, 0.5292922258377075, 0.2742191553115845
};

/* conv_transpose2d.json: "convTranspose2d float32 4D input and filter tensors options.dilations" (tolerance ULP 8) */
/* float32 [1, 1, 3, 3] */
static const double cx_ct_dil_convTranspose2dInput[] = {
	0.3194596767425537, 0.9762163758277893, 0.4131408631801605, 0.47982943058013916,
	0.76741623878479, 0.9083173871040344, 0.6205142140388489, 0.6580719947814941,
	0.6553052067756653
};
/* float32 [1, 1, 2, 2] constant */
static const double cx_ct_dil_convTranspose2dFilter[] = {
	0.6835425496101379, 0.9641214609146118, 0.8272836804389954, 0.5771222710609436
};
/* float32 [1, 1, 5, 5] */
static const double cx_ct_dil_convTranspose2dOutput[] = {
	0.21836428344249725, 0.6672854423522949, 0.590397298336029, 0.9411911368370056,
	0.39831796288490295, 0.3279838263988495, 0.5245616436004639, 1.0834873914718628,
	0.7398824691772461, 0.8757283091545105, 0.6884316205978394, 1.2574280500411987,
	1.5723320245742798, 1.1978574991226196, 0.8702266216278076, 0.39695504307746887,
	0.6348709464073181, 1.0283564329147339, 0.44289299845695496, 0.5242102146148682,
	0.5133413076400757, 0.5444121956825256, 0.9002358913421631, 0.37978801131248474,
	0.3781912326812744
};

/* resample2d.json: "resample2d(upsample) float32 4D tensor options.sizes options.mode='linear'" (tolerance ULP 84) */
/* float32 [1, 1, 2, 3] */
static const double cx_rs_linear_resample2dInput[] = {
	59.92947006225586, 41.98918914794922, 66.39534759521484, 90.7006607055664, 86.95105743408203,
	79.10005187988281
};
/* float32 [1, 1, 4, 6] */
static const double cx_rs_linear_resample2dOutput[] = {
	59.92947006225586, 55.444400787353516, 46.47425842285156, 48.090728759765625,
	60.29380798339844, 66.39534759521484, 67.62226867675781, 64.02411651611328, 56.82780838012695,
	57.31512451171875, 65.48605346679688, 69.57152557373047, 83.00786590576172, 81.18354797363281,
	77.534912109375, 75.76390838623047, 75.87055206298828, 75.92387390136719, 90.7006607055664,
	89.76325988769531, 87.88845825195312, 84.9883041381836, 81.06280517578125, 79.10005187988281
};

/* resample2d.json: "resample2d(upsample) float32 4D tensor options.axes=[1, 0]" (tolerance ULP 0) */
/* float32 [3, 2, 1, 1] */
static const double cx_rs_axes_resample2dInput[] = {
	59.92947006225586, 90.7006607055664, 41.98918914794922, 86.95105743408203, 66.39534759521484,
	79.10005187988281
};
/* float32 [6, 4, 1, 1] */
static const double cx_rs_axes_resample2dOutput[] = {
	59.92947006225586, 59.92947006225586, 90.7006607055664, 90.7006607055664, 59.92947006225586,
	59.92947006225586, 90.7006607055664, 90.7006607055664, 41.98918914794922, 41.98918914794922,
	86.95105743408203, 86.95105743408203, 41.98918914794922, 41.98918914794922, 86.95105743408203,
	86.95105743408203, 66.39534759521484, 66.39534759521484, 79.10005187988281, 79.10005187988281,
	66.39534759521484, 66.39534759521484, 79.10005187988281, 79.10005187988281
};

/* layer_normalization.json: "layerNormalization float32 4D tensor all options" (tolerance ULP 14) */
/* float32 [2, 1, 4, 3] */
static const double cx_ln_all_layerNormInput[] = {
	-35.51446533203125, 54.735408782958984, 19.659019470214844, -15.882678031921387,
	65.48657989501953, 25.818492889404297, 97.55302429199219, -8.057161331176758,
	62.9412956237793, -48.91555404663086, 91.90644073486328, 46.67098617553711,
	-74.85331726074219, 30.126361846923828, 26.13089370727539, 59.30270767211914,
	-60.361995697021484, 18.55615234375, -88.03730773925781, -26.5667724609375, 70.81292724609375,
	9.105611801147461, 56.66746139526367, 21.78444480895996
};
/* float32 [2, 3, 1] constant */
static const double cx_ln_all_layerNormScale[] = {
	7.715926647186279, 1.7371079921722412, 9.13965129852295, 5.758823394775391,
	-2.8198351860046387, -0.6866958141326904
};
/* float32 [2, 3, 1] constant */
static const double cx_ln_all_layerNormBias[] = {
	-8.710672378540039, -7.642981052398682, 4.937538146972656, -2.1876745223999023,
	-4.067612648010254, -6.836254596710205
};
/* float32 [2, 1, 4, 3] */
static const double cx_ln_all_layerNormOutput[] = {
	-15.487034797668457, -5.628695964813232, 8.29687786102295, -14.294686317443848,
	-5.639192581176758, 7.11608362197876, 0.7769554257392883, -8.346451759338379,
	11.279659271240234, -22.506288528442383, -5.173816204071045, 8.506545066833496,
	-12.360523223876953, -5.77052116394043, -7.18900203704834, 3.6336634159088135,
	0.8666883707046509, -6.884884357452393, -11.648612976074219, -2.117840528488159,
	-7.396423816680908, -4.869131088256836, -5.8111701011657715, -6.714934349060059
};

/* instance_normalization.json: "instanceNormalization float32 4D tensor all options" (tolerance ULP 840) */
/* float32 [2, 2, 2, 3] */
static const double cx_in_all_instanceNormInput[] = {
	-97.949951171875, 41.33772659301758, 35.82481384277344, 29.44037628173828, -59.77853012084961,
	-6.948329448699951, -73.92131042480469, -74.66901397705078, 54.42462158203125,
	-38.11185836791992, -68.16508483886719, 47.53074645996094, 66.93562316894531,
	37.37651062011719, 73.8739242553711, 76.74034881591797, 56.252689361572266,
	-99.00035095214844, 5.6758809089660645, -16.574905395507812, -33.11322784423828,
	25.68659210205078, 42.949893951416016, -17.380685806274414
};
/* float32 [3] constant */
static const double cx_in_all_instanceNormScale[] = {
	-94.42772674560547, 66.69620513916016, -98.56572723388672
};
/* float32 [3] constant */
static const double cx_in_all_instanceNormBias[] = {
	-33.048641204833984, 4.511423587799072, -37.93617248535156
};
/* float32 [2, 2, 2, 3] */
static const double cx_in_all_instanceNormOutput[] = {
	70.77738189697266, 119.31526184082031, -50.821895599365234, -179.65554809570312,
	-22.847837448120117, 126.01134490966797, 23.540178298950195, -43.782920837402344,
	-127.71744537353516, -46.8565788269043, -34.6388053894043, -99.2166976928711,
	-108.09159851074219, 22.237276077270508, -186.15142822265625, -139.83889770507812,
	67.60342407226562, 90.01669311523438, 90.26488494873047, -107.4271011352539,
	-15.238543510437012, 25.471038818359375, 35.6320915222168, -40.37141418457031
};

/* gatherND.json: "gatherND float32 2D input and 2D out-of-bounds indices" (tolerance ULP 0) */
/* float32 [16, 1] */
static const double cx_gnd_oob_gatherNDInput[] = {
	-66.05901336669922, -68.9197006225586, -77.02045440673828, -26.158037185668945,
	89.0337142944336, -45.89653396606445, 43.84803771972656, 48.81806945800781, 51.79948425292969,
	41.94132614135742, -1.1303654909133911, -50.42131042480469, 90.2870101928711,
	55.620765686035156, 44.92119598388672, 56.828636169433594
};
/* int32 [2, 1] constant */
static const double cx_gnd_oob_gatherNDIndices[] = { 16, 20 };
/* float32 [2, 1] */
static const double cx_gnd_oob_gatherNDOutput[] = { 56.828636169433594, 56.828636169433594 };

/* gatherElements.json: "gatherElements float32 3D input and int32 negative indices" (tolerance ULP 0) */
/* float32 [2, 2, 2] */
static const double cx_ge_neg_gatherElementsInput[] = {
	-66.05901336669922, -68.9197006225586, -77.02045440673828, -26.158037185668945,
	89.0337142944336, -45.89653396606445, 43.84803771972656, 48.81806945800781
};
/* int32 [1, 2, 2] constant */
static const double cx_ge_neg_gatherElementsIndices[] = { -1, 0, 0, -1 };
/* float32 [1, 2, 2] */
static const double cx_ge_neg_gatherElementsOutput[] = {
	89.0337142944336, -68.9197006225586, -77.02045440673828, 48.81806945800781
};

/* scatterND.json: "scatterND 2D int8 tensors with index out of bound" (tolerance ULP 0) */
/* int8 [2, 1] */
static const double cx_snd_oob_input[] = { 0, 0 };
/* int32 [1, 1] */
static const double cx_snd_oob_indices[] = { 2147483647 };
/* int8 [1, 1] */
static const double cx_snd_oob_updates[] = { 1 };
/* int8 [2, 1] */
static const double cx_snd_oob_output[] = { 0, 1 };

/* scatterElements.json: "scatterElements float32 tensors along axis 1" (tolerance ULP 0) */
/* float32 [1, 5] */
static const double cx_se_axis1_input[] = { 1, 2, 3, 4, 5 };
/* int32 [1, 2] */
static const double cx_se_axis1_indices[] = { 1, 3 };
/* float32 [1, 2] */
static const double cx_se_axis1_updates[] = { 1.1, 2.1 };
/* float32 [1, 5] */
static const double cx_se_axis1_output[] = { 1, 1.1, 3, 2.1, 5 };

/* quantizeLinear.json: "quantizeLinear float32 3D tensor with implicit block_size = [1, 2, 1]." (tolerance ULP 1) */
/* float32 [1, 4, 1] */
static const double cx_q_block_quantizeLinearInput[] = {
	-2.549168109893799, -4.794857501983643, 8.413617134094238, 6.108623504638672
};
/* float32 [1, 2, 1] constant */
static const double cx_q_block_quantizeLinearScale[] = { 0.2800687253475189, 4.617084980010986 };
/* uint8 [1, 2, 1] constant */
static const double cx_q_block_quantizeLinearZeroPoint[] = { 128, 189 };
/* uint8 [1, 4, 1] */
static const double cx_q_block_quantizeLinearOutput[] = { 119, 111, 191, 190 };

/* dequantizeLinear.json: "dequantizeLinear int8 2D tensor with float32 2D scale, block_size = [3, 2]" (tolerance ULP 1) */
/* int8 [6, 4] */
static const double cx_dq_block_dequantizeLinearInput[] = {
	-124, 0, 23, 122, 12, 23, 45, 36, 67, 78, -22, 0, -34, -45, -56, -67, 89, 30, 12, 23, 56, 67,
	56, -12
};
/* float32 [2, 2] constant */
static const double cx_dq_block_dequantizeLinearScale[] = {
	0.2800687253475189, 4.617084980010986, 1.280068725347519, 3.617084980010986
};
/* int8 [2, 2] constant */
static const double cx_dq_block_dequantizeLinearZeroPoint[] = { 1, 3, 5, 12 };
/* float32 [6, 4] */
static const double cx_dq_block_dequantizeLinearOutput[] = {
	-35.00859069824219, -0.2800687253475189, 92.3416976928711, 549.43310546875,
	3.0807559490203857, 6.1615118980407715, 193.91757202148438, 152.36380004882812,
	18.484535217285156, 21.565292358398438, -115.4271240234375, -13.851255416870117,
	-49.92267990112305, -64.0034408569336, -245.96177673339844, -285.7497253417969,
	107.52577209472656, 32.0017204284668, 0, 39.787933349609375, 65.28350830078125,
	79.36426544189453, 159.1517333984375, -86.81004333496094
};

/* reduce_log_sum_exp.json: "reduceLogSumExp avoids overflows caused by taking the exp of large inputs" (tolerance ULP 20) */
/* float32 [1] */
static const double cx_lse_big_reduceLogSumExpInput[] = { 100 };
/* float32 [] */
static const double cx_lse_big_reduceLogSumExpOutput[] = { 100 };

/* cumulative_sum.json: "cumulativeSum with float32 input and set reversed to true." (tolerance ULP 3) */
/* float32 [1, 1, 3, 4] */
static const double cx_cs_rev_cumulativeSumInput[] = {
	60.42374038696289, -86.92247772216797, -19.496112823486328, -15.150615692138672,
	13.455190658569336, 45.433597564697266, 61.082862854003906, 70.71882629394531,
	-31.278579711914062, 56.08354187011719, 38.992767333984375, -3.27536940574646
};
/* float32 [1, 1, 3, 4] */
static const double cx_cs_rev_cumulativeSumOutput[] = {
	-61.1454659, -121.5692139, -34.6467285, -15.1506157, 190.6904907, 177.2352905, 131.8016968,
	70.7188263, 60.5223618, 91.8009415, 35.7173996, -3.2753694
};

/* pad.json: "pad float32 4D tensor options.mode='reflection'" (tolerance ULP 0) */
/* float32 [1, 3, 3, 1] */
static const double cx_pad_refl_padInput[] = {
	22.76361846923828, -21.168529510498047, -91.66168975830078, 16.863798141479492,
	60.51472091674805, -70.56755065917969, -60.643272399902344, -47.8821907043457,
	68.72557830810547
};
/* float32 [1, 7, 7, 1] */
static const double cx_pad_refl_padOutput[] = {
	68.72557830810547, -47.8821907043457, -60.643272399902344, -47.8821907043457,
	68.72557830810547, -47.8821907043457, -60.643272399902344, -70.56755065917969,
	60.51472091674805, 16.863798141479492, 60.51472091674805, -70.56755065917969,
	60.51472091674805, 16.863798141479492, -91.66168975830078, -21.168529510498047,
	22.76361846923828, -21.168529510498047, -91.66168975830078, -21.168529510498047,
	22.76361846923828, -70.56755065917969, 60.51472091674805, 16.863798141479492,
	60.51472091674805, -70.56755065917969, 60.51472091674805, 16.863798141479492,
	68.72557830810547, -47.8821907043457, -60.643272399902344, -47.8821907043457,
	68.72557830810547, -47.8821907043457, -60.643272399902344, -70.56755065917969,
	60.51472091674805, 16.863798141479492, 60.51472091674805, -70.56755065917969,
	60.51472091674805, 16.863798141479492, -91.66168975830078, -21.168529510498047,
	22.76361846923828, -21.168529510498047, -91.66168975830078, -21.168529510498047,
	22.76361846923828
};

/* ---- literal WPT cases (webnn/conformance_tests, via shared/conformance; every operand is
 * made a constant here, graph inputs are covered by the tests above) */

static Webnn__Ipc__RecurrentActivation *relu_acts(size_t n)
{
	Webnn__Ipc__RecurrentActivation *a = rt_arena(n * sizeof(*a));
	for (size_t i = 0; i < n; i++)
		a[i] = WEBNN__IPC__RECURRENT_ACTIVATION__ACT_RELU;
	return a;
}

#define C(t, type, arr, ...) rt_constant((t), (type), SHAPE(__VA_ARGS__), (arr))

TEST(refx_wpt_gru)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_gru_all_gruInput, 2, 3, 2);
	uint32_t w = C(&t, WNN_F32, cx_gru_all_gruWeight, 1, 12, 2);
	uint32_t r = C(&t, WNN_F32, cx_gru_all_gruRecurrentWeight, 1, 12, 4);
	uint32_t b = C(&t, WNN_F32, cx_gru_all_gruBias, 1, 12);
	uint32_t rb = C(&t, WNN_F32, cx_gru_all_gruRecurrentBias, 1, 12);
	uint32_t h0 = C(&t, WNN_F32, cx_gru_all_gruInitialHiddenState, 1, 3, 4);
	Webnn__Ipc__Gru *m = MSG(Webnn__Ipc__Gru, WEBNN__IPC__GRU__INIT);
	m->input = x, m->weight = w, m->recurrent_weight = r, m->steps = 2, m->hidden_size = 4;
	m->has_bias = true, m->bias = b, m->has_recurrent_bias = true, m->recurrent_bias = rb;
	m->has_initial_hidden_state = true, m->initial_hidden_state = h0;
	m->reset_after = false, m->return_sequence = true;
	m->direction = WEBNN__IPC__RECURRENT_DIRECTION__BACKWARD;
	m->n_activations = 2, m->activations = relu_acts(2);
	LIST(m, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_GRU, m);
	void **outs = rt_run(&t, NULL);
	rt_check(&t, outs, 0, cx_gru_all_gruOutput1, 6, 0);
	rt_check(&t, outs, 1, cx_gru_all_gruOutput2, 6, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_gru_both_gruInput, 2, 3, 2);
	w = C(&t, WNN_F32, cx_gru_both_gruWeight, 2, 12, 2);
	r = C(&t, WNN_F32, cx_gru_both_gruRecurrentWeight, 2, 12, 4);
	b = C(&t, WNN_F32, cx_gru_both_gruBias, 2, 12);
	rb = C(&t, WNN_F32, cx_gru_both_gruRecurrentBias, 2, 12);
	m = MSG(Webnn__Ipc__Gru, WEBNN__IPC__GRU__INIT);
	m->input = x, m->weight = w, m->recurrent_weight = r, m->steps = 2, m->hidden_size = 4;
	m->has_bias = true, m->bias = b, m->has_recurrent_bias = true, m->recurrent_bias = rb;
	m->reset_after = true, m->return_sequence = true;
	m->direction = WEBNN__IPC__RECURRENT_DIRECTION__BOTH;
	m->n_activations = 2, m->activations = relu_acts(2);
	LIST(m, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_GRU, m);
	outs = rt_run(&t, NULL);
	rt_check(&t, outs, 0, cx_gru_both_gruOutput1, 6, 0);
	rt_check(&t, outs, 1, cx_gru_both_gruOutput2, 6, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_gru_rzn_gruInput, 1, 3, 2);
	w = C(&t, WNN_F32, cx_gru_rzn_gruWeight, 1, 12, 2);
	r = C(&t, WNN_F32, cx_gru_rzn_gruRecurrentWeight, 1, 12, 4);
	b = C(&t, WNN_F32, cx_gru_rzn_gruBias, 1, 12);
	rb = C(&t, WNN_F32, cx_gru_rzn_gruRecurrentBias, 1, 12);
	m = MSG(Webnn__Ipc__Gru, WEBNN__IPC__GRU__INIT);
	m->input = x, m->weight = w, m->recurrent_weight = r, m->steps = 1, m->hidden_size = 4;
	m->has_bias = true, m->bias = b, m->has_recurrent_bias = true, m->recurrent_bias = rb;
	m->reset_after = false, m->layout = WEBNN__IPC__GRU_WEIGHT_LAYOUT__RZN;
	m->n_activations = 2, m->activations = relu_acts(2);
	LIST(m, outputs, tg_next(&t));
	rt_op(&t, WNN_OP_GRU, m);
	rt_check(&t, rt_run(&t, NULL), 0, cx_gru_rzn_gruOutput, 6, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_grucell_all_gruCellInput, 3, 2);
	w = C(&t, WNN_F32, cx_grucell_all_gruCellWeight, 12, 2);
	r = C(&t, WNN_F32, cx_grucell_all_gruCellRecurrentWeight, 12, 4);
	h0 = C(&t, WNN_F32, cx_grucell_all_gruCellHiddenState, 3, 4);
	b = C(&t, WNN_F32, cx_grucell_all_gruCellBias, 12);
	rb = C(&t, WNN_F32, cx_grucell_all_gruCellRecurrentBias, 12);
	Webnn__Ipc__GruCell *c = MSG(Webnn__Ipc__GruCell, WEBNN__IPC__GRU_CELL__INIT);
	c->input = x, c->weight = w, c->recurrent_weight = r, c->hidden_state = h0;
	c->has_bias = true, c->bias = b, c->has_recurrent_bias = true, c->recurrent_bias = rb;
	c->output = tg_next(&t), c->hidden_size = 4, c->reset_after = false;
	c->n_activations = 2, c->activations = relu_acts(2);
	rt_op(&t, WNN_OP_GRU_CELL, c);
	rt_check(&t, rt_run(&t, NULL), 0, cx_grucell_all_gruCellOutput, 3, 0);
	tg_free(&t);
}

TEST(refx_wpt_lstm)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_lstm_all_lstmInput, 2, 2, 2);
	uint32_t w = C(&t, WNN_F32, cx_lstm_all_lstmWeight, 1, 8, 2);
	uint32_t r = C(&t, WNN_F32, cx_lstm_all_lstmRecurrentWeight, 1, 8, 2);
	uint32_t b = C(&t, WNN_F32, cx_lstm_all_lstmBias, 1, 8);
	uint32_t rb = C(&t, WNN_F32, cx_lstm_all_lstmRecurrentBias, 1, 8);
	uint32_t ph = C(&t, WNN_F32, cx_lstm_all_lstmPeepholeWeight, 1, 6);
	uint32_t h0 = C(&t, WNN_F32, cx_lstm_all_lstmInitialHiddenState, 1, 2, 2);
	uint32_t c0 = C(&t, WNN_F32, cx_lstm_all_lstmInitialCellState, 1, 2, 2);
	Webnn__Ipc__Lstm *m = MSG(Webnn__Ipc__Lstm, WEBNN__IPC__LSTM__INIT);
	m->input = x, m->weight = w, m->recurrent_weight = r, m->steps = 2, m->hidden_size = 2;
	m->has_bias = true, m->bias = b, m->has_recurrent_bias = true, m->recurrent_bias = rb;
	m->has_peephole_weight = true, m->peephole_weight = ph;
	m->has_initial_hidden_state = true, m->initial_hidden_state = h0;
	m->has_initial_cell_state = true, m->initial_cell_state = c0;
	m->return_sequence = true, m->direction = WEBNN__IPC__RECURRENT_DIRECTION__BACKWARD;
	m->layout = WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IOFG;
	m->n_activations = 3, m->activations = relu_acts(3);
	LIST(m, outputs, tg_next(&t), tg_next(&t) + 1, tg_next(&t) + 2);
	rt_op(&t, WNN_OP_LSTM, m);
	void **outs = rt_run(&t, NULL);
	rt_check(&t, outs, 0, cx_lstm_all_lstmOutput1, 3, 0);
	rt_check(&t, outs, 1, cx_lstm_all_lstmOutput2, 3, 0);
	rt_check(&t, outs, 2, cx_lstm_all_lstmOutput3, 3, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_lstm_back_lstmInput, 2, 2, 2);
	w = C(&t, WNN_F32, cx_lstm_back_lstmWeight, 1, 8, 2);
	r = C(&t, WNN_F32, cx_lstm_back_lstmRecurrentWeight, 1, 8, 2);
	b = C(&t, WNN_F32, cx_lstm_back_lstmBias, 1, 8);
	rb = C(&t, WNN_F32, cx_lstm_back_lstmRecurrentBias, 1, 8);
	m = MSG(Webnn__Ipc__Lstm, WEBNN__IPC__LSTM__INIT);
	m->input = x, m->weight = w, m->recurrent_weight = r, m->steps = 2, m->hidden_size = 2;
	m->has_bias = true, m->bias = b, m->has_recurrent_bias = true, m->recurrent_bias = rb;
	m->direction = WEBNN__IPC__RECURRENT_DIRECTION__BACKWARD;
	m->n_activations = 3, m->activations = relu_acts(3);
	LIST(m, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_LSTM, m);
	outs = rt_run(&t, NULL);
	rt_check(&t, outs, 0, cx_lstm_back_lstmOutput1, 3, 0);
	rt_check(&t, outs, 1, cx_lstm_back_lstmOutput2, 3, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellInput, 2, 2);
	w = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellWeight, 8, 2);
	r = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellRecurrentWeight, 8, 2);
	h0 = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellHiddenState, 2, 2);
	c0 = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellCellState, 2, 2);
	b = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellBias, 8);
	rb = C(&t, WNN_F32, cx_lstmcell_ifgo_lstmCellRecurrentBias, 8);
	Webnn__Ipc__LstmCell *c = MSG(Webnn__Ipc__LstmCell, WEBNN__IPC__LSTM_CELL__INIT);
	c->input = x, c->weight = w, c->recurrent_weight = r, c->hidden_state = h0;
	c->cell_state = c0, c->hidden_size = 2;
	c->has_bias = true, c->bias = b, c->has_recurrent_bias = true, c->recurrent_bias = rb;
	c->layout = WEBNN__IPC__LSTM_WEIGHT_LAYOUT__IFGO;
	c->n_activations = 3, c->activations = relu_acts(3);
	LIST(c, outputs, tg_next(&t), tg_next(&t) + 1);
	rt_op(&t, WNN_OP_LSTM_CELL, c);
	outs = rt_run(&t, NULL);
	rt_check(&t, outs, 0, cx_lstmcell_ifgo_lstmCellOutput1, 1, 0);
	rt_check(&t, outs, 1, cx_lstmcell_ifgo_lstmCellOutput2, 1, 0);
	tg_free(&t);
}

static Webnn__Ipc__ConvTranspose2d *ct_msg(struct tg_graph *t, uint32_t x, uint32_t f)
{
	Webnn__Ipc__ConvTranspose2d *m =
		MSG(Webnn__Ipc__ConvTranspose2d, WEBNN__IPC__CONV_TRANSPOSE2D__INIT);
	m->input = x, m->filter = f, m->output = tg_next(t);
	return m;
}

TEST(refx_wpt_conv_transpose2d)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_ct_opad_convTranspose2dInput, 1, 1, 3, 3);
	uint32_t f = C(&t, WNN_F32, cx_ct_opad_convTranspose2dFilter, 1, 2, 3, 3);
	Webnn__Ipc__ConvTranspose2d *m = ct_msg(&t, x, f);
	LIST(m, strides, 3, 2);
	LIST(m, output_padding, 1, 1);
	uint32_t o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 2, 10, 8));
	rt_expect(&t, NULL, cx_ct_opad_convTranspose2dOutput, 18);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_ct_nhwc_convTranspose2dInput, 1, 3, 3, 1);
	f = C(&t, WNN_F32, cx_ct_nhwc_convTranspose2dFilter, 2, 3, 3, 1);
	m = ct_msg(&t, x, f);
	LIST(m, output_sizes, 6, 6);
	LIST(m, strides, 2, 2);
	LIST(m, padding, 0, 1, 0, 1);
	m->filter_layout = WEBNN__IPC__CONV_TRANSPOSE2D_FILTER_LAYOUT__OHWI_T;
	m->input_layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	o = rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect_shape(&t, o, SHAPE(1, 6, 6, 2));
	rt_expect(&t, NULL, cx_ct_nhwc_convTranspose2dOutput, 18);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_ct_groups_convTranspose2dInput, 1, 2, 2, 2);
	f = C(&t, WNN_F32, cx_ct_groups_convTranspose2dFilter, 2, 1, 2, 2);
	m = ct_msg(&t, x, f);
	LIST(m, strides, 2, 2);
	m->groups = 2;
	rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect(&t, NULL, cx_ct_groups_convTranspose2dOutput, 8);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_ct_dil_convTranspose2dInput, 1, 1, 3, 3);
	f = C(&t, WNN_F32, cx_ct_dil_convTranspose2dFilter, 1, 1, 2, 2);
	m = ct_msg(&t, x, f);
	LIST(m, dilations, 2, 2);
	rt_op(&t, WNN_OP_CONV_TRANSPOSE2D, m);
	rt_expect(&t, NULL, cx_ct_dil_convTranspose2dOutput, 8);
	tg_free(&t);
}

TEST(refx_wpt_resample_and_normalization)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_rs_linear_resample2dInput, 1, 1, 2, 3);
	Webnn__Ipc__Resample2d *r = MSG(Webnn__Ipc__Resample2d, WEBNN__IPC__RESAMPLE2D__INIT);
	r->input = x, r->output = tg_next(&t), r->mode = WEBNN__IPC__INTERPOLATION_MODE__LINEAR;
	LIST(r, sizes, 4, 6);
	rt_op(&t, WNN_OP_RESAMPLE2D, r);
	rt_expect(&t, NULL, cx_rs_linear_resample2dOutput, 84);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_rs_axes_resample2dInput, 3, 2, 1, 1);
	r = MSG(Webnn__Ipc__Resample2d, WEBNN__IPC__RESAMPLE2D__INIT);
	r->input = x, r->output = tg_next(&t);
	LIST(r, sizes, 4, 6);
	LIST(r, axes, 1, 0);
	uint32_t o = rt_op(&t, WNN_OP_RESAMPLE2D, r);
	rt_expect_shape(&t, o, SHAPE(6, 4, 1, 1));
	rt_expect(&t, NULL, cx_rs_axes_resample2dOutput, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_ln_all_layerNormInput, 2, 1, 4, 3);
	uint32_t s = C(&t, WNN_F32, cx_ln_all_layerNormScale, 2, 3, 1);
	uint32_t b = C(&t, WNN_F32, cx_ln_all_layerNormBias, 2, 3, 1);
	Webnn__Ipc__LayerNormalization *l =
		MSG(Webnn__Ipc__LayerNormalization, WEBNN__IPC__LAYER_NORMALIZATION__INIT);
	l->input = x, l->output = tg_next(&t), l->epsilon = 0.0001, l->has_axes = true;
	l->has_scale = true, l->scale = s, l->has_bias = true, l->bias = b;
	LIST(l, axes, 0, 3, 1);
	rt_op(&t, WNN_OP_LAYER_NORMALIZATION, l);
	rt_expect(&t, NULL, cx_ln_all_layerNormOutput, 14);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_in_all_instanceNormInput, 2, 2, 2, 3);
	s = C(&t, WNN_F32, cx_in_all_instanceNormScale, 3);
	b = C(&t, WNN_F32, cx_in_all_instanceNormBias, 3);
	Webnn__Ipc__InstanceNormalization *in =
		MSG(Webnn__Ipc__InstanceNormalization, WEBNN__IPC__INSTANCE_NORMALIZATION__INIT);
	in->input = x, in->output = tg_next(&t), in->epsilon = 1e-6;
	in->has_scale = true, in->scale = s, in->has_bias = true, in->bias = b;
	in->layout = WEBNN__IPC__INPUT_LAYOUT__NHWC;
	rt_op(&t, WNN_OP_INSTANCE_NORMALIZATION, in);
	rt_expect(&t, NULL, cx_in_all_instanceNormOutput, 840);
	tg_free(&t);
}

TEST(refx_wpt_gather_scatter_out_of_bounds)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_gnd_oob_gatherNDInput, 16, 1);
	uint32_t i = C(&t, WNN_I32, cx_gnd_oob_gatherNDIndices, 2, 1);
	Webnn__Ipc__Gather *g = MSG(Webnn__Ipc__Gather, WEBNN__IPC__GATHER__INIT);
	g->input = x, g->indices = i, g->output = tg_next(&t);
	rt_op(&t, WNN_OP_GATHER_ND, g);
	rt_expect(&t, NULL, cx_gnd_oob_gatherNDOutput, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_ge_neg_gatherElementsInput, 2, 2, 2);
	i = C(&t, WNN_I32, cx_ge_neg_gatherElementsIndices, 1, 2, 2);
	g = MSG(Webnn__Ipc__Gather, WEBNN__IPC__GATHER__INIT);
	g->input = x, g->indices = i, g->output = tg_next(&t);
	rt_op(&t, WNN_OP_GATHER_ELEMENTS, g);
	rt_expect(&t, NULL, cx_ge_neg_gatherElementsOutput, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_I8, cx_snd_oob_input, 2, 1);
	i = C(&t, WNN_I32, cx_snd_oob_indices, 1, 1);
	uint32_t u = C(&t, WNN_I8, cx_snd_oob_updates, 1, 1);
	Webnn__Ipc__Scatter *s = MSG(Webnn__Ipc__Scatter, WEBNN__IPC__SCATTER__INIT);
	s->input = x, s->indices = i, s->updates = u, s->output = tg_next(&t);
	rt_op(&t, WNN_OP_SCATTER_ND, s);
	rt_expect(&t, NULL, cx_snd_oob_output, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_se_axis1_input, 1, 5);
	i = C(&t, WNN_I32, cx_se_axis1_indices, 1, 2);
	u = C(&t, WNN_F32, cx_se_axis1_updates, 1, 2);
	s = MSG(Webnn__Ipc__Scatter, WEBNN__IPC__SCATTER__INIT);
	s->input = x, s->indices = i, s->updates = u, s->output = tg_next(&t), s->axis = 1;
	rt_op(&t, WNN_OP_SCATTER_ELEMENTS, s);
	rt_expect(&t, NULL, cx_se_axis1_output, 0);
	tg_free(&t);
}

TEST(refx_wpt_quantize_reduce_cumsum_pad)
{
	struct tg_graph t;
	tg_init(&t);
	uint32_t x = C(&t, WNN_F32, cx_q_block_quantizeLinearInput, 1, 4, 1);
	uint32_t s = C(&t, WNN_F32, cx_q_block_quantizeLinearScale, 1, 2, 1);
	uint32_t z = C(&t, WNN_U8, cx_q_block_quantizeLinearZeroPoint, 1, 2, 1);
	Webnn__Ipc__QuantizeLinear *q =
		MSG(Webnn__Ipc__QuantizeLinear, WEBNN__IPC__QUANTIZE_LINEAR__INIT);
	q->input = x, q->scale = s, q->zero_point = z, q->output = tg_next(&t);
	rt_op(&t, WNN_OP_QUANTIZE_LINEAR, q);
	rt_expect(&t, NULL, cx_q_block_quantizeLinearOutput, 0);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_I8, cx_dq_block_dequantizeLinearInput, 6, 4);
	s = C(&t, WNN_F32, cx_dq_block_dequantizeLinearScale, 2, 2);
	z = C(&t, WNN_I8, cx_dq_block_dequantizeLinearZeroPoint, 2, 2);
	q = MSG(Webnn__Ipc__QuantizeLinear, WEBNN__IPC__QUANTIZE_LINEAR__INIT);
	q->input = x, q->scale = s, q->zero_point = z, q->output = tg_next(&t);
	rt_op(&t, WNN_OP_DEQUANTIZE_LINEAR, q);
	rt_expect(&t, NULL, cx_dq_block_dequantizeLinearOutput, 1);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_lse_big_reduceLogSumExpInput, 1);
	Webnn__Ipc__Reduce *r = rt_reduce_msg(&t, x);
	r->has_axes = true;
	LIST(r, axes, 0);
	rt_op(&t, WNN_OP_REDUCE_LOG_SUM_EXP, r);
	rt_expect(&t, NULL, cx_lse_big_reduceLogSumExpOutput, 20);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_cs_rev_cumulativeSumInput, 1, 1, 3, 4);
	Webnn__Ipc__CumulativeSum *c = MSG(Webnn__Ipc__CumulativeSum, WEBNN__IPC__CUMULATIVE_SUM__INIT);
	c->input = x, c->output = tg_next(&t), c->axis = 3, c->reversed = true;
	rt_op(&t, WNN_OP_CUMULATIVE_SUM, c);
	rt_expect(&t, NULL, cx_cs_rev_cumulativeSumOutput, 3);
	tg_free(&t);

	tg_init(&t);
	x = C(&t, WNN_F32, cx_pad_refl_padInput, 1, 3, 3, 1);
	Webnn__Ipc__Pad *p = MSG(Webnn__Ipc__Pad, WEBNN__IPC__PAD__INIT);
	p->input = x, p->output = tg_next(&t), p->mode = WEBNN__IPC__PADDING_MODE__PAD_REFLECTION;
	LIST(p, beginning_padding, 0, 2, 2, 0);
	LIST(p, ending_padding, 0, 2, 2, 0);
	rt_op(&t, WNN_OP_PAD, p);
	rt_expect(&t, NULL, cx_pad_refl_padOutput, 0);
	tg_free(&t);
}
